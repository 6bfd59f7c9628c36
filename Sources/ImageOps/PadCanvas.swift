import ImageCore

/// The fill of a padded thumbnail's bands, as pixels see it. (Thumbnailer's `PadBackground` names
/// the choices; `auto` reaches here as the colour `EdgeColor` reads from the photo, and `blur`
/// has a canvas of its own, `BlurredBackdrop`.)
public enum PadFill: Sendable, Equatable {
    case color(red: UInt8, green: UInt8, blue: UInt8)
    case transparent
}

public enum PadCanvas {
    /// `photo` centred on a `width` x `height` canvas of `fill`. With a colour, the photo's own
    /// transparent pixels are laid over it too, so the result is opaque; transparent keeps them.
    public static func padded(_ photo: PixelBuffer, width: Int, height: Int, fill: PadFill) -> PixelBuffer {
        precondition(photo.width <= width && photo.height <= height, "the photo is larger than its canvas")
        let left = (width - photo.width) / 2, top = (height - photo.height) / 2
        switch fill {
        case .transparent:
            var canvas = PixelBuffer(width: width, height: height, hasAlpha: true)
            paste(photo, into: &canvas, left: left, top: top)
            canvas.hasAlpha = true
            return canvas
        case .color(let red, let green, let blue):
            var canvas = PixelBuffer(width: width, height: height, hasAlpha: false)
            canvas.pixels.withUnsafeMutableBufferPointer { p in
                for i in stride(from: 0, to: p.count, by: 4) {
                    p[i] = red; p[i + 1] = green; p[i + 2] = blue; p[i + 3] = 255
                }
            }
            paste(photo.flattened(red: red, green: green, blue: blue), into: &canvas, left: left, top: top)
            return canvas
        }
    }

    /// Copies `photo`'s rows into `canvas` at (left, top), alpha and all.
    static func paste(_ photo: PixelBuffer, into canvas: inout PixelBuffer, left: Int, top: Int) {
        let rowBytes = photo.rowBytes, canvasRowBytes = canvas.rowBytes
        photo.pixels.withUnsafeBufferPointer { source in
            canvas.pixels.withUnsafeMutableBufferPointer { target in
                for row in 0..<photo.height {
                    let from = row * rowBytes, to = (top + row) * canvasRowBytes + left * PixelBuffer.bytesPerPixel
                    (target.baseAddress! + to).update(from: source.baseAddress! + from, count: rowBytes)
                }
            }
        }
    }
}
