import ImageCore
import ImageOps
import Testing

@Suite struct OrientTests {
    /// Every pixel different: its stored (x, y) is written into R, G (low bytes) and B (high bits).
    static func marked(width: Int, height: Int, hasAlpha: Bool = false) -> PixelBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height { for x in 0..<width {
            let i = 4 * (y * width + x)
            pixels[i] = UInt8(x & 0xFF); pixels[i + 1] = UInt8(y & 0xFF)
            pixels[i + 2] = UInt8((x >> 8) | ((y >> 8) << 4)); pixels[i + 3] = hasAlpha ? UInt8((x + y) % 256) : 255
        } }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: pixels)
    }

    /// The EXIF definition of each value: which side of the displayed image the stored row 0 and
    /// the stored column 0 are (TIFF 6.0 / EXIF 2.3, tag 0x0112).
    enum Side { case top, bottom, left, right }
    static let exifSides: [Orientation: (row0: Side, column0: Side)] = [
        .up: (.top, .left), .upMirrored: (.top, .right), .down: (.bottom, .right), .downMirrored: (.bottom, .left),
        .leftMirrored: (.left, .top), .right: (.right, .top), .rightMirrored: (.right, .bottom), .left: (.left, .bottom),
    ]

    /// Where stored pixel (sx, sy) of a w x h image appears upright, from `exifSides` alone.
    static func uprightPosition(_ o: Orientation, sx: Int, sy: Int, w: Int, h: Int) -> (x: Int, y: Int) {
        let (row0, column0) = exifSides[o]!
        switch row0 {
        case .top, .bottom:  // stored rows stay rows
            return (column0 == .left ? sx : w - 1 - sx, row0 == .top ? sy : h - 1 - sy)
        case .left, .right:  // stored rows become columns
            return (row0 == .left ? sy : h - 1 - sy, column0 == .top ? sx : w - 1 - sx)
        }
    }

    @Test(arguments: Orientation.allCases)
    func eachOrientationPutsEveryPixelWhereExifSays(orientation: Orientation) {
        // 70 x 45 spans several 32-pixel tiles with ragged ends; 5 x 3 is tiny and odd.
        for (w, h) in [(5, 3), (70, 45), (1, 9)] {
            let stored = Self.marked(width: w, height: h, hasAlpha: true)
            let upright = stored.oriented(orientation)
            #expect(upright.hasAlpha)
            if orientation.swapsDimensions {
                #expect(upright.width == h && upright.height == w)
            } else {
                #expect(upright.width == w && upright.height == h)
            }
            var wrong = 0
            for sy in 0..<h { for sx in 0..<w {
                let (x, y) = Self.uprightPosition(orientation, sx: sx, sy: sy, w: w, h: h)
                if upright.pixel(x: x, y: y) != stored.pixel(x: sx, y: sy) { wrong += 1 }
            } }
            #expect(wrong == 0, "\(orientation) \(w)x\(h): \(wrong) pixels misplaced")
        }
    }

    @Test func aPictureStoredSidewaysComesUpright() {
        // An upright 4x2 picture with a red top-left corner, stored rotated for orientation 6
        // (the camera was turned clockwise): the stored image is 2x4 with red at its bottom-left.
        var pixels = [UInt8](repeating: 0, count: 2 * 4 * 4)
        for i in 0..<8 { pixels[4 * i + 3] = 255 }
        let bottomLeft = 4 * (3 * 2 + 0)
        pixels[bottomLeft] = 255
        let stored = PixelBuffer(width: 2, height: 4, hasAlpha: false, pixels: pixels)
        let upright = stored.oriented(.right)
        #expect(upright.width == 4 && upright.height == 2)
        #expect(upright.pixel(x: 0, y: 0) == (255, 0, 0, 255))
        #expect(upright.pixels.filter { $0 == 255 }.count == 8 + 1)
    }

    @Test(arguments: Orientation.allCases)
    func orientingThenInvertingRestoresTheOriginal(orientation: Orientation) {
        for (w, h, alpha) in [(33, 65, false), (64, 32, true), (1, 1, false), (7, 1, true)] {
            let image = Self.marked(width: w, height: h, hasAlpha: alpha)
            let back = image.oriented(orientation).oriented(orientation.inverse)
            #expect(back == image)
        }
        #expect(orientation.inverse.inverse == orientation)
    }

    @Test func upIsTheIdentity() {
        let image = Self.marked(width: 9, height: 4)
        #expect(image.oriented(.up) == image)
    }
}
