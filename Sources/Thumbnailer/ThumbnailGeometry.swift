import ImageCore
import ImageOps

/// Where the thumbnail comes from in the upright source, and how big it comes out.
struct ThumbnailGeometry: Equatable {
    var outputWidth: Int
    var outputHeight: Int
    /// Region of the upright source image, in source pixels.
    var region: SourceRegion

    init(uprightWidth width: Int, uprightHeight height: Int, size: Int, fit: Fit) {
        let w = Double(width), h = Double(height)
        switch fit {
        case .cover:
            let side = min(w, h)
            outputWidth = size
            outputHeight = size
            region = SourceRegion(x: (w - side) / 2, y: (h - side) / 2, width: side, height: side)
        case .contain:
            if width >= height {
                outputWidth = size
                outputHeight = max(1, Int((Double(size) * h / w).rounded()))
            } else {
                outputHeight = size
                outputWidth = max(1, Int((Double(size) * w / h).rounded()))
            }
            region = SourceRegion(x: 0, y: 0, width: w, height: h)
        }
    }

    /// The fraction of full size the decoder must keep so the region is still `headroom` times the output.
    func minimumDecodeScale(headroom: Double) -> DecodeScaleHint {
        let needed = max(Double(outputWidth) / region.width, Double(outputHeight) / region.height) * headroom
        return DecodeScaleHint(minimumScale: needed)
    }
}
