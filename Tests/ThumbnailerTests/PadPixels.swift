import ImageCore
import ImageOps

/// Reading padded thumbnails in the tests: which pixels are band, their colours and spread.
enum PadPixels {
    typealias Pixel = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    static func equals(_ pixel: Pixel, _ colour: (red: UInt8, green: UInt8, blue: UInt8)) -> Bool {
        pixel.r == colour.red && pixel.g == colour.green && pixel.b == colour.blue && pixel.a == 255
    }

    /// Every pixel of `image` outside `box`.
    static func outside(_ box: PixelBox, of image: PixelBuffer) -> [Pixel] {
        var found: [Pixel] = []
        for y in 0..<image.height {
            for x in 0..<image.width where !(box.x..<(box.x + box.width)).contains(x) || !(box.y..<(box.y + box.height)).contains(y) {
                found.append(image.pixel(x: x, y: y))
            }
        }
        return found
    }

    static func count(in image: PixelBuffer, outside box: PixelBox, where matches: (Pixel) -> Bool) -> Int {
        outside(box, of: image).filter(matches).count
    }

    /// Each of the photo's outermost rows and columns holds at least one pixel that is not the band.
    static func edgesShowPhoto(_ image: PixelBuffer, _ box: PixelBox, band: (red: UInt8, green: UInt8, blue: UInt8)) -> Bool {
        let rows = [box.y, box.y + box.height - 1], columns = [box.x, box.x + box.width - 1]
        let rowsShow = rows.allSatisfy { y in (box.x..<(box.x + box.width)).contains { !equals(image.pixel(x: $0, y: y), band) } }
        let columnsShow = columns.allSatisfy { x in (box.y..<(box.y + box.height)).contains { !equals(image.pixel(x: x, y: $0), band) } }
        return rowsShow && columnsShow
    }

    /// The mean R, G and B of `box`.
    static func meanColour(_ image: PixelBuffer, _ box: PixelBox) -> (r: Double, g: Double, b: Double) {
        var sums = (0, 0, 0)
        for y in box.y..<(box.y + box.height) {
            for x in box.x..<(box.x + box.width) {
                let p = image.pixel(x: x, y: y)
                sums.0 += Int(p.r); sums.1 += Int(p.g); sums.2 += Int(p.b)
            }
        }
        let n = Double(box.width * box.height)
        return (Double(sums.0) / n, Double(sums.1) / n, Double(sums.2) / n)
    }

    /// The largest per-channel difference between two mean colours.
    static func distance(_ a: (r: Double, g: Double, b: Double), _ b: (r: Double, g: Double, b: Double)) -> Double {
        max(abs(a.r - b.r), abs(a.g - b.g), abs(a.b - b.b))
    }

    /// How many pixels of two images of one size differ (in any channel, alpha too): a count for
    /// messages, where comparing the buffers would print every byte of both.
    static func differingPixels(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        precondition(a.width == b.width && a.height == b.height, "the images differ in size")
        return stride(from: 0, to: a.pixels.count, by: 4).count { i in (0..<4).contains { a.pixels[i + $0] != b.pixels[i + $0] } }
    }

    /// The variance of the Rec.601 luma of `pixels`.
    static func lumaVariance(_ pixels: [Pixel]) -> Double {
        let luma = pixels.map { 0.299 * Double($0.r) + 0.587 * Double($0.g) + 0.114 * Double($0.b) }
        let mean = luma.reduce(0, +) / Double(luma.count)
        return luma.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(luma.count)
    }
}

extension PixelBuffer {
    /// A copy of the `width` x `height` rectangle at (x, y).
    func part(x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        precondition(x >= 0 && y >= 0 && x + width <= self.width && y + height <= self.height, "the part lies outside the image")
        var out: [UInt8] = []
        out.reserveCapacity(width * height * PixelBuffer.bytesPerPixel)
        for row in y..<(y + height) {
            let start = (row * self.width + x) * PixelBuffer.bytesPerPixel
            out.append(contentsOf: pixels[start..<(start + width * PixelBuffer.bytesPerPixel)])
        }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: out)
    }

    func part(_ box: PixelBox) -> PixelBuffer { part(x: box.x, y: box.y, width: box.width, height: box.height) }
}
