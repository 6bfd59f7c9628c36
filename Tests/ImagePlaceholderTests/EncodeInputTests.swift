import ImageCore
import ImagePlaceholder
import Testing

@Suite("Encoder inputs")
struct EncodeInputTests {
    private func opaque(_ width: Int, _ height: Int, grey: UInt8 = 100) -> PixelBuffer {
        PixelBuffer(width: width, height: height, hasAlpha: false,
                    pixels: [UInt8]((0..<(width * height)).flatMap { _ in [grey, grey, grey, 255] }))
    }

    @Test("sides up to 100 are accepted, larger ones refused without a crash")
    func sizeLimit() {
        #expect(ThumbHash.encode(opaque(100, 100)) != nil)
        #expect(ThumbHash.encode(opaque(101, 1)) == nil)
        #expect(ThumbHash.encode(opaque(1, 101)) == nil)
        #expect(ThumbHash.encode(opaque(250, 250)) == nil)
    }

    @Test("a buffer whose pixels no longer match its size is refused")
    func mismatchedPixels() {
        var image = opaque(10, 10)
        image.pixels.removeLast()
        #expect(ThumbHash.encode(image) == nil)
        #expect(ThumbHash.encode(fitting: image) == nil)
        #expect(ThumbHash.shrinkToFit(image) == nil)
        image.pixels.append(contentsOf: [0, 0])
        #expect(ThumbHash.encode(image) == nil)
    }

    @Test("alpha is read from the pixels, not from the hasAlpha flag")
    func alphaFlagIgnored() throws {
        var image = TestImage.all[0].image
        image.hasAlpha = true
        let flagged = try #require(ThumbHash.encode(image))
        image.hasAlpha = false
        #expect(ThumbHash.encode(image) == flagged)
        // Opaque pixels make a 5-byte header; one translucent pixel adds the alpha byte.
        image.pixels[3] = 254
        let translucent = try #require(ThumbHash.encode(image))
        #expect(translucent[2] & 0x80 != 0 && flagged[2] & 0x80 == 0)
    }

    @Test("hashes stay within 25 bytes", arguments: TestImage.all)
    func hashLength(_ sample: TestImage) throws {
        let hash = try #require(ThumbHash.encode(sample.image))
        #expect(hash.count <= 25 && hash.count >= 5)
    }
}
