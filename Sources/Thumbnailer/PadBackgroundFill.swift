import ImageCore
import ImageOps

extension PadCanvas {
    /// `photo` (already fitted inside the box) on a `width` x `height` canvas of `background`.
    static func padded(_ photo: PixelBuffer, width: Int, height: Int, background: PadBackground) -> PixelBuffer {
        switch background {
        case .color(let red, let green, let blue):
            return padded(photo, width: width, height: height, fill: .color(red: red, green: green, blue: blue))
        case .transparent:
            return padded(photo, width: width, height: height, fill: .transparent)
        case .auto:
            // Read from the resized photo: its edges are what sits against the bands, and a few
            // hundred pixels of them cost nothing next to the resize.
            let edge = EdgeColor.median(of: photo, canvasWidth: width, canvasHeight: height)
            return padded(photo, width: width, height: height, fill: .color(red: edge.red, green: edge.green, blue: edge.blue))
        case .blur:
            return BlurredBackdrop.padded(photo, width: width, height: height)
        }
    }
}
