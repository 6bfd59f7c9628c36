import ImageCore

/// A padded photo laid over a strongly blurred copy of itself that covers the whole canvas, as
/// galleries show a portrait photo in a landscape frame: the bands carry the photo's own colours,
/// and nothing in them is sharp enough to compete with the photo.
///
/// The blur is done small: the copy is shrunk to an eighth of the canvas (Lanczos, whose box
/// pre-reduction makes that cheap), blurred there, and enlarged again, bilinearly (`BilinearEnlarge`).
/// A blur of 5 % of the canvas's side is then a box of a few pixels, and only the bands are
/// enlarged when the photo is opaque, since the photo hides the rest: a 1200 x 1200 pad costs a few
/// milliseconds more than one of a flat colour.
public enum BlurredBackdrop {
    /// The blurred copy is this many times smaller than the canvas on each side.
    static let reduction = 8
    /// The blur's box radius as a share of the canvas's longer side. Three passes make it a
    /// Gaussian of sigma about that radius: 60 px on a 1200 px canvas, which leaves shapes and
    /// colours but no detail.
    static let radiusShare = 0.05

    /// `photo` (already fitted inside the canvas) centred on a `width` x `height` canvas of its own
    /// blurred cover copy. Opaque: a photo with alpha is composited over the blurred copy, and the
    /// copy itself is flattened over white before it is blurred.
    public static func padded(_ photo: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        precondition(width > 0 && height > 0 && photo.width <= width && photo.height <= height,
                     "the photo is larger than its canvas")
        let left = (width - photo.width) / 2, top = (height - photo.height) / 2
        let small = blurredCover(of: photo, width: width, height: height)
        var canvas = PixelBuffer(width: width, height: height)
        if photo.hasAlpha {
            BilinearEnlarge.enlarge(small, part: PixelBox(x: 0, y: 0, width: width, height: height), width: width, height: height, into: &canvas)
            composite(photo, over: &canvas, left: left, top: top)
        } else {
            for band in bands(photoWidth: photo.width, photoHeight: photo.height, left: left, top: top, width: width, height: height) {
                BilinearEnlarge.enlarge(small, part: band, width: width, height: height, into: &canvas)
            }
            PadCanvas.paste(photo, into: &canvas, left: left, top: top)
        }
        return canvas
    }

    /// The blurred copy, at `reduction` times smaller than the canvas: the photo's centred window
    /// of the canvas's shape (a cover crop), shrunk, flattened over white and blurred.
    static func blurredCover(of photo: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let smallWidth = (width + reduction - 1) / reduction, smallHeight = (height + reduction - 1) / reduction
        let canvasAspect = Double(width) / Double(height)
        let (w, h) = (Double(photo.width), Double(photo.height))
        let (cropWidth, cropHeight) = w / h > canvasAspect ? (h * canvasAspect, h) : (w, w / canvasAspect)
        let window = SourceRegion(x: (w - cropWidth) / 2, y: (h - cropHeight) / 2, width: cropWidth, height: cropHeight)
        var small = Resampler.resize(photo, region: window, width: smallWidth, height: smallHeight, prereduction: .box(lanczosFactor: 1)).flattened()
        let radius = max(1, Int((radiusShare * Double(max(smallWidth, smallHeight))).rounded()))
        BoxBlur.blur(&small, radius: radius)
        return small
    }

    /// The rectangles of the canvas the photo leaves uncovered (none, one or two per axis).
    static func bands(photoWidth: Int, photoHeight: Int, left: Int, top: Int, width: Int, height: Int) -> [PixelBox] {
        let candidates = [
            PixelBox(x: 0, y: 0, width: width, height: top),
            PixelBox(x: 0, y: top + photoHeight, width: width, height: height - top - photoHeight),
            PixelBox(x: 0, y: top, width: left, height: photoHeight),
            PixelBox(x: left + photoWidth, y: top, width: width - left - photoWidth, height: photoHeight),
        ]
        return candidates.filter { $0.width > 0 && $0.height > 0 }
    }

    /// `photo` composited over the opaque `canvas` at (left, top): "over", with straight alpha.
    /// Opaque and clear pixels, most of a cut-out, are a copy and nothing.
    static func composite(_ photo: PixelBuffer, over canvas: inout PixelBuffer, left: Int, top: Int) {
        let canvasWidth = canvas.width
        photo.pixels.withUnsafeBufferPointer { source in
            canvas.pixels.withUnsafeMutableBufferPointer { target in
                for row in 0..<photo.height {
                    var from = source.baseAddress! + row * photo.rowBytes
                    var to = target.baseAddress! + ((top + row) * canvasWidth + left) * PixelBuffer.bytesPerPixel
                    for _ in 0..<photo.width {
                        let alpha = UInt32(from[3])
                        if alpha == 255 {
                            to[0] = from[0]; to[1] = from[1]; to[2] = from[2]
                        } else if alpha != 0 {
                            let rest = 255 - alpha
                            for c in 0..<3 {
                                to[c] = UInt8(truncatingIfNeeded: (UInt32(from[c]) * alpha + UInt32(to[c]) * rest + 127) / 255)
                            }
                        }
                        from += PixelBuffer.bytesPerPixel
                        to += PixelBuffer.bytesPerPixel
                    }
                }
            }
        }
    }
}
