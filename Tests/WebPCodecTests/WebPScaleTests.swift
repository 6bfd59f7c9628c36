import ImageCore
import TestSupport
import Testing
import WebPCodec

@Suite("WebP scaled decode")
struct WebPScaleTests {
    @Test("the big 11158x2156 image decodes at scale 0.1 to at least 1116x216, fast",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func bigImage() throws {
        let data = try WebPFiles.corpus("lossy/bryce.webp")
        let clock = ContinuousClock()
        let start = clock.now
        let image = try WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.1))
        let elapsed = clock.now - start
        #expect(image.pixels.width == 1116 && image.pixels.height == 216)
        #expect(image.info.width == 11158 && image.info.height == 2156)  // info keeps the stored size
        #expect(!image.pixels.hasAlpha)
        // libwebp still parses every macroblock; about 0.3 s here. Generous for a loaded CI machine.
        #expect(elapsed < .seconds(3), "took \(elapsed)")
        // Not a flat or empty image: a photograph has spread.
        let reds = stride(from: 0, to: image.pixels.pixels.count, by: 4).map { image.pixels.pixels[$0] }
        #expect((reds.max() ?? 0) - (reds.min() ?? 0) > 100)
    }

    @Test("scaled sizes round up and never drop below one pixel",
          arguments: [(1.0, 48, 32), (0.5, 24, 16), (0.3, 15, 10), (0.01, 1, 1), (0.0, 1, 1), (0.999, 48, 32)])
    func sizes(scale: Double, width: Int, height: Int) throws {
        let image = try WebPCodec.decode(try WebPFiles.testImage("lossy_rgb_48x32.webp"), limits: DecodeLimits(),
                                         scale: DecodeScaleHint(minimumScale: scale))
        #expect(image.pixels.width == width && image.pixels.height == height)
    }

    /// The scaled decode should look like the full decode averaged down.
    static func boxDownsample(_ image: PixelBuffer, factor: Int) -> [UInt8] {
        let w = image.width / factor, h = image.height / factor
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<4 {
                    var sum = 0
                    for dy in 0..<factor {
                        for dx in 0..<factor { sum += Int(image.pixels[((y * factor + dy) * image.width + x * factor + dx) * 4 + c]) }
                    }
                    out[(y * w + x) * 4 + c] = UInt8((sum + factor * factor / 2) / (factor * factor))
                }
            }
        }
        return out
    }

    /// libwebp scales lossy images in YUV, using the half-resolution chroma as it is, where the
    /// full decode interpolates it ("fancy upsampling"); on these tiny edge-heavy images that alone
    /// differs by about 4-5 levels on average (dwebp -scale gives the same), so lossy gets a looser
    /// bound. A wrong stride, channel order or scale factor is off by tens of levels.
    @Test("a half-size decode matches the full decode averaged 2x2",
          arguments: [("lossless_rgba_32x24.webp", 2.0), ("lossy_rgb_48x32.webp", 6.0), ("lossy_alpha_40x30.webp", 7.0)])
    func halfSizeLooksRight(name: String, bound: Double) throws {
        let data = try WebPFiles.testImage(name)
        let full = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let half = try WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.5))
        #expect(half.pixels.width == full.pixels.width / 2 && half.pixels.height == full.pixels.height / 2)
        #expect(half.pixels.hasAlpha == full.pixels.hasAlpha)
        let expected = Self.boxDownsample(full.pixels, factor: 2)
        let difference = Pixels.meanAbsoluteDifference(half.pixels.pixels, expected)
        #expect(difference < bound, "mean absolute difference \(difference)")
        // The comparison can tell a wrong image: against the full decode mirrored, it is far off.
        let mirrored = PixelBuffer(width: full.pixels.width, height: full.pixels.height, hasAlpha: full.pixels.hasAlpha,
                                   pixels: Self.mirrored(full.pixels))
        #expect(Pixels.meanAbsoluteDifference(half.pixels.pixels, Self.boxDownsample(mirrored, factor: 2)) > 2 * bound)
    }

    static func mirrored(_ image: PixelBuffer) -> [UInt8] {
        var out = image.pixels
        for y in 0..<image.height {
            for x in 0..<image.width {
                for c in 0..<4 { out[(y * image.width + x) * 4 + c] = image.pixels[(y * image.width + image.width - 1 - x) * 4 + c] }
            }
        }
        return out
    }

    @Test("a quarter-size decode of corpus files matches a 4x4 average",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)),
          arguments: ["lossy/test.webp", "lossless/lossless4.webp", "alpha/lossy_alpha4.webp"])
    func quarterSizeCorpus(file: String) throws {
        let data = try WebPFiles.corpus(file)
        let full = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let quarter = try WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.25))
        #expect(quarter.pixels.width == full.pixels.width / 4 && quarter.pixels.height == full.pixels.height / 4)
        let difference = Pixels.meanAbsoluteDifference(quarter.pixels.pixels, Self.boxDownsample(full.pixels, factor: 4))
        #expect(difference < 4, "mean absolute difference \(difference)")
    }
}
