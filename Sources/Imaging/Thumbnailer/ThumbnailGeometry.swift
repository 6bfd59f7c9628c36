import ImageCore
import ImageOps

/// Where the thumbnail comes from in the upright source, and how big it comes out.
struct ThumbnailGeometry: Equatable {
    /// The resized photo's size: the box for `cover`, the photo fitted inside it for `contain` and `pad`.
    var outputWidth: Int
    var outputHeight: Int
    /// Region of the upright source image, in source pixels.
    var region: SourceRegion

    init(uprightWidth width: Int, uprightHeight height: Int, width boxWidth: Int, height boxHeight: Int, fit: Fit) {
        self.init(frame: SourceRegion(x: 0, y: 0, width: Double(width), height: Double(height)),
                  width: boxWidth, height: boxHeight, fit: fit)
    }

    /// The thumbnail of `frame`, a part of the upright source (the whole of it, or what trimming
    /// kept): its centred window of the box's shape for `cover`, all of it for `contain` and `pad`.
    init(frame: SourceRegion, width boxWidth: Int, height boxHeight: Int, fit: Fit) {
        let w = frame.width, h = frame.height
        let boxAspect = Double(boxWidth) / Double(boxHeight)
        switch fit {
        case .cover:
            outputWidth = boxWidth
            outputHeight = boxHeight
            // The largest window of the box's shape the frame holds.
            let (cropWidth, cropHeight) = w / h > boxAspect ? (h * boxAspect, h) : (w, w / boxAspect)
            region = SourceRegion(x: frame.x + (w - cropWidth) / 2, y: frame.y + (h - cropHeight) / 2,
                                  width: cropWidth, height: cropHeight)
        case .contain, .pad:
            if w / h >= boxAspect {
                outputWidth = boxWidth
                outputHeight = min(boxHeight, max(1, Int((Double(boxWidth) * h / w).rounded())))
            } else {
                outputHeight = boxHeight
                outputWidth = min(boxWidth, max(1, Int((Double(boxHeight) * w / h).rounded())))
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

extension ThumbnailGeometry {
    /// `region`, a crop of the upright photo, in the stored image's full-size pixels, with the output
    /// size as stored: what the resize reads and makes before the thumbnail is turned upright.
    func stored(_ region: SourceRegion, info: ImageInfo) -> (region: SourceRegion, width: Int, height: Int) {
        let stored = Resampler.storedRegion(region, orientation: info.orientation,
                                            storedWidth: Double(info.width), storedHeight: Double(info.height))
        return info.orientation.swapsDimensions ? (stored, outputHeight, outputWidth) : (stored, outputWidth, outputHeight)
    }
}
