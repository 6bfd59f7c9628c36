import ImageCore
import ImagePlaceholder
import Testing

@Suite("Shrinking to fit 100x100")
struct ShrinkTests {
    @Test("sizes keep the ratio, the longer side becoming 100", arguments: [
        (400, 300, 100, 75), (300, 400, 75, 100), (1000, 3, 100, 1), (3, 1000, 1, 100),
        (150, 101, 100, 67), (100, 100, 100, 100), (40, 7, 40, 7), (4000, 4000, 100, 100), (201, 100, 100, 50),
    ])
    func fittedSizes(_ w: Int, _ h: Int, _ ew: Int, _ eh: Int) {
        let size = ThumbHash.fittedSize(width: w, height: h)
        #expect(size.width == ew && size.height == eh)
    }

    @Test("absurd sizes give an answer, not a trap")
    func absurdSizes() {
        #expect(ThumbHash.fittedSize(width: Int.max, height: Int.max / 2) == (100, 50))
        #expect(ThumbHash.fittedSize(width: Int.max, height: 1) == (100, 1))
        #expect(ThumbHash.fittedSize(width: -5, height: 1000) == (1, 100))
    }

    @Test("halving averages each 2x2 block")
    func blockAverage() throws {
        let source = TestImage.make("blocks", 200, 120, shapeFitsFormat: true) { x, y, r in
            let c = TestImage.photoLike(x, y, &r)
            return (c.0, c.1, c.2, 255)
        }.image
        let small = try #require(ThumbHash.shrinkToFit(source))
        try #require(small.width == 100 && small.height == 60)
        #expect(small.hasAlpha == false)
        for y in 0..<60 {
            for x in 0..<100 {
                let block = [source.pixel(x: 2 * x, y: 2 * y), source.pixel(x: 2 * x + 1, y: 2 * y),
                             source.pixel(x: 2 * x, y: 2 * y + 1), source.pixel(x: 2 * x + 1, y: 2 * y + 1)]
                let mean = { (channel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> Int in Int(channel.r) }
                let expectedR = Double(block.map(mean).reduce(0, +)) / 4
                let expectedB = Double(block.map { Int($0.b) }.reduce(0, +)) / 4
                let got = small.pixel(x: x, y: y)
                #expect(abs(Double(got.r) - expectedR) <= 0.5 && abs(Double(got.b) - expectedB) <= 0.5 && got.a == 255)
            }
        }
    }

    @Test("a flat image stays exactly flat at an awkward factor")
    func flatStaysFlat() throws {
        let source = PixelBuffer(width: 333, height: 250, hasAlpha: false,
                                 pixels: [UInt8]((0..<(333 * 250)).flatMap { _ in [UInt8(17), 201, 99, 255] }))
        let small = try #require(ThumbHash.shrinkToFit(source))
        #expect(small.width == 100 && small.height == 75)
        for i in stride(from: 0, to: small.pixels.count, by: 4) {
            #expect(Array(small.pixels[i..<i + 4]) == [17, 201, 99, 255])
        }
    }

    @Test("transparent pixels do not tint their neighbours")
    func premultiplied() throws {
        // Each pair of columns: a transparent red pixel beside an opaque blue one.
        let source = PixelBuffer(width: 200, height: 200, hasAlpha: true, pixels: [UInt8]((0..<40_000).flatMap { i -> [UInt8] in
            i % 2 == 0 ? [255, 0, 0, 0] : [0, 0, 255, 255]
        }))
        let small = try #require(ThumbHash.shrinkToFit(source))
        for i in stride(from: 0, to: small.pixels.count, by: 4) {
            #expect(Array(small.pixels[i..<i + 4]) == [0, 0, 255, 128])
        }
        #expect(small.hasAlpha)
    }

    @Test("the alpha-weighted mean colour survives shrinking")
    func meanPreserved() throws {
        let sample = TestImage.make("mean", 257, 171, shapeFitsFormat: true) { x, y, r in
            let c = TestImage.photoLike(x, y, &r)
            return (c.0, c.1, c.2, (x * 3 + y) % 256)
        }
        let small = TestImage(name: "small", image: try #require(ThumbHash.shrinkToFit(sample.image)), shapeFitsFormat: true)
        #expect(small.image.width == 100 && small.image.height == 67)
        let before = sample.meanColour, after = small.meanColour
        #expect(abs(before.r - after.r) < 1 && abs(before.g - after.g) < 1 && abs(before.b - after.b) < 1)
        #expect(abs(before.a - after.a) < 1)
    }

    @Test("encode(fitting:) hashes large images and leaves small ones alone")
    func encodeFitting() throws {
        let large = TestImage.make("large", 1000, 750, shapeFitsFormat: true) { x, y, _ in (x / 4, y / 3, 77, 255) }.image
        let hash = try #require(ThumbHash.encode(fitting: large))
        let shrunk = try #require(ThumbHash.shrinkToFit(large))
        #expect(hash == ThumbHash.encode(shrunk))
        #expect(ThumbHash.aspectRatio(hash) == 7.0 / 5.0)
        for sample in TestImage.all {
            #expect(ThumbHash.encode(fitting: sample.image) == ThumbHash.encode(sample.image))
        }
    }
}
