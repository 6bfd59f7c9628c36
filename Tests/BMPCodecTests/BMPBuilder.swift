/// BMP files assembled in the tests, for the cases no committed file holds (refusals, odd masks).
enum BMPBuilder {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A 40-byte BITMAPINFOHEADER, or a longer one padded with `tail` (masks, colour space...) and zeros.
    static func infoHeader(size: Int = 40, width: Int, height: Int, bits: Int, compression: Int = 0,
                           imageSize: Int = 0, colorsUsed: Int = 0, planes: Int = 1, tail: [UInt8] = []) -> [UInt8] {
        var header = le32(size) + le32(width) + le32(height) + le16(planes) + le16(bits) + le32(compression)
            + le32(imageSize) + le32(2835) + le32(2835) + le32(colorsUsed) + le32(0)
        header += tail
        return header + [UInt8](repeating: 0, count: max(0, size - header.count))
    }

    /// File header + info header + whatever follows it + pixel data; `pixelOffset` overrides the offset.
    static func file(_ header: [UInt8], after: [UInt8] = [], pixels: [UInt8], pixelOffset: Int? = nil) -> [UInt8] {
        let offset = 14 + header.count + after.count
        return Array("BM".utf8) + le32(offset + pixels.count) + [0, 0, 0, 0] + le32(pixelOffset ?? offset)
            + header + after + pixels
    }

    /// A valid 24-bit BMP of `width` x `height`, every pixel (10, 20, 30).
    static func rgb24(width: Int, height: Int) -> [UInt8] {
        let stride = (width * 3 + 3) / 4 * 4
        var row = [UInt8](repeating: 0, count: stride)
        for x in 0..<width { row[x * 3] = 30; row[x * 3 + 1] = 20; row[x * 3 + 2] = 10 }
        return file(infoHeader(width: width, height: height, bits: 24), pixels: Array((0..<height).map { _ in row }.joined()))
    }

    /// A 32-bit BI_BITFIELDS file (40-byte header, three masks after it) with the given pixel values.
    static func bitfields32(masks: [Int], pixels: [UInt32], width: Int) -> [UInt8] {
        let header = infoHeader(width: width, height: pixels.count / width, bits: 32, compression: 3)
        return file(header, after: masks.flatMap(le32), pixels: pixels.flatMap { le32(Int($0)) })
    }

    /// An 8-bit RLE8 file of `width` x `height` with a 4-entry grey palette and the given stream.
    static func rle8(width: Int, height: Int, stream: [UInt8], imageSize: Int? = nil, topDown: Bool = false) -> [UInt8] {
        let header = infoHeader(width: width, height: topDown ? -height : height, bits: 8, compression: 1,
                                imageSize: imageSize ?? stream.count, colorsUsed: 4)
        let palette: [UInt8] = [0, 0, 0, 0, 80, 80, 80, 0, 160, 160, 160, 0, 255, 255, 255, 0]
        return file(header, after: palette, pixels: stream)
    }
}
