import ImageCore

/// What fills the bands around a padded photo.
public enum PadBackground: Sendable, Hashable {
    /// One opaque colour (white, the marketplaces' rule, unless asked otherwise).
    case color(red: UInt8, green: UInt8, blue: UInt8)
    /// The photo's own edge colour (`EdgeColor`), so a product on a sweep blends into the bands.
    case auto
    /// A blurred copy of the photo stretched to cover the box (`BlurredBackdrop`), as galleries
    /// show a portrait photo in a landscape frame.
    case blur
    /// Transparent bands, and the photo keeps its own alpha: for formats that carry alpha.
    case transparent

    public static let white = PadBackground.color(red: 255, green: 255, blue: 255)
}

public enum PadCanvas {
    /// `photo` (already fitted inside the canvas) centred on a `width` x `height` canvas of
    /// `background`. With a colour (or `auto`'s, or `blur`), the photo's own transparent pixels
    /// are laid over it too, so the result is opaque; `transparent` keeps them.
    public static func padded(_ photo: PixelBuffer, width: Int, height: Int, background: PadBackground) -> PixelBuffer {
        precondition(photo.width <= width && photo.height <= height, "the photo is larger than its canvas")
        let left = (width - photo.width) / 2, top = (height - photo.height) / 2
        let (red, green, blue): (UInt8, UInt8, UInt8)
        switch background {
        case .blur:
            return BlurredBackdrop.padded(photo, width: width, height: height)
        case .transparent:
            var canvas = PixelBuffer(width: width, height: height, hasAlpha: true)
            paste(photo, into: &canvas, left: left, top: top)
            canvas.hasAlpha = true
            return canvas
        case .auto:
            // Read from the resized photo: its edges are what sits against the bands, and a few
            // hundred pixels of them cost nothing next to the resize.
            (red, green, blue) = EdgeColor.median(of: photo, canvasWidth: width, canvasHeight: height)
        case .color(let r, let g, let b):
            (red, green, blue) = (r, g, b)
        }
        var canvas = PixelBuffer(width: width, height: height, hasAlpha: false)
        canvas.pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                p[i] = red; p[i + 1] = green; p[i + 2] = blue; p[i + 3] = 255
            }
        }
        paste(photo.flattened(red: red, green: green, blue: blue), into: &canvas, left: left, top: top)
        return canvas
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
