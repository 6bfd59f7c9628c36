import ImageCore
import ImageOps

/// Where the thumbnail comes from in the upright source, and how big it comes out.
struct ThumbnailGeometry: Equatable {
    var outputWidth: Int
    var outputHeight: Int
    /// Region of the upright source image, in source pixels.
    var region: SourceRegion

    init(uprightWidth width: Int, uprightHeight height: Int, size: Int, fit: Fit) {
        self.init(frame: SourceRegion(x: 0, y: 0, width: Double(width), height: Double(height)), size: size, fit: fit)
    }

    /// The thumbnail of `frame`, a part of the upright source (the whole of it, or what trimming
    /// kept): its centred square for `cover`, all of it for `contain`.
    init(frame: SourceRegion, size: Int, fit: Fit) {
        let w = frame.width, h = frame.height
        switch fit {
        case .cover:
            let side = min(w, h)
            outputWidth = size
            outputHeight = size
            region = SourceRegion(x: frame.x + (w - side) / 2, y: frame.y + (h - side) / 2, width: side, height: side)
        case .contain:
            if w >= h {
                outputWidth = size
                outputHeight = max(1, Int((Double(size) * h / w).rounded()))
            } else {
                outputHeight = size
                outputWidth = max(1, Int((Double(size) * w / h).rounded()))
            }
            region = frame
        }
    }

    /// The fraction of full size the decoder must keep so the region is still `headroom` times the output.
    func minimumDecodeScale(headroom: Double) -> DecodeScaleHint {
        let needed = max(Double(outputWidth) / region.width, Double(outputHeight) / region.height) * headroom
        return DecodeScaleHint(minimumScale: needed)
    }
}
