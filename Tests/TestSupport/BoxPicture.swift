import ImageCore

/// A flat picture with one coloured box where a test says, and how much of a thumbnail is that
/// box: crops and trims checked against a known product box.
public enum BoxPicture {
    public static let red: (UInt8, UInt8, UInt8) = (200, 30, 30)

    public static func make(width: Int, height: Int, background: (UInt8, UInt8, UInt8) = (255, 255, 255),
                            box: (x: Int, y: Int, width: Int, height: Int), colour: (UInt8, UInt8, UInt8) = red) -> PixelBuffer {
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let inside = (box.x..<(box.x + box.width)).contains(x) && (box.y..<(box.y + box.height)).contains(y)
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = inside ? colour : background
            }
        }
        return image
    }

    /// Share of `image`'s pixels that are clearly the red box (JPEG and resampling blur its edge).
    public static func redShare(_ image: PixelBuffer) -> Double {
        var red = 0
        for i in stride(from: 0, to: image.pixels.count, by: 4) where image.pixels[i] > 150 && image.pixels[i + 1] < 90 { red += 1 }
        return Double(red) / Double(image.width * image.height)
    }
}
