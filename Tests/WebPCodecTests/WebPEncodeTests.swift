import ImageCore
import Testing
import WebPCodec

@Suite("WebP encode")
struct WebPEncodeTests {
    static let allowedChunks: Set<String> = ["VP8 ", "VP8L", "VP8X", "ALPH"]

    static func roundTrip(_ image: PixelBuffer, quality: Int?) throws -> (data: [UInt8], decoded: DecodedImage) {
        let data = try WebPCodec.encode(image, quality: quality)
        #expect(SniffedFormat.sniff(data) == .supported(.webp))
        let decoded = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.width == image.width && decoded.pixels.height == image.height)
        return (data, decoded)
    }

    /// The VP8L header's alpha_is_used bit (bit 28 after the 0x2F signature).
    static func losslessAlphaBit(_ data: [UInt8]) -> Bool {
        let bits = UInt32(data[21]) | UInt32(data[22]) << 8 | UInt32(data[23]) << 16 | UInt32(data[24]) << 24
        return bits >> 28 & 1 == 1
    }

    @Test("lossless RGB round trip is exact, with no alpha", arguments: [(200, 200), (1, 1), (37, 5)])
    func losslessRGB(width: Int, height: Int) throws {
        let image = Pixels.pattern(width: width, height: height, alpha: false)
        let (data, decoded) = try Self.roundTrip(image, quality: nil)
        #expect(decoded.pixels.pixels == image.pixels)
        #expect(!decoded.pixels.hasAlpha && !decoded.info.hasAlpha)
        #expect(RIFFChunks.fourCCs(data) == ["VP8L"])
        #expect(!Self.losslessAlphaBit(data))
    }

    @Test("lossless RGBA round trip is exact, RGB under transparent pixels too")
    func losslessRGBA() throws {
        let image = Pixels.pattern(width: 200, height: 150, alpha: true)
        #expect(image.pixel(x: 0, y: 0).a == 0 && image.pixel(x: 0, y: 149).g > 0)
        let (data, decoded) = try Self.roundTrip(image, quality: nil)
        #expect(decoded.pixels.pixels == image.pixels)
        #expect(decoded.pixels.hasAlpha)
        #expect(RIFFChunks.fourCCs(data) == ["VP8L"])
        #expect(Self.losslessAlphaBit(data))
    }

    @Test("lossy opaque round trip is close and writes no alpha", arguments: [50, 82, 95])
    func lossyOpaque(quality: Int) throws {
        let image = Pixels.pattern(width: 200, height: 200, alpha: false)
        let (data, decoded) = try Self.roundTrip(image, quality: quality)
        #expect(RIFFChunks.fourCCs(data) == ["VP8 "], "simple lossy format, no VP8X/ALPH/metadata")
        #expect(!decoded.pixels.hasAlpha)
        #expect(Pixels.allOpaque(decoded.pixels.pixels))
        let difference = Pixels.meanAbsoluteDifference(decoded.pixels.pixels, image.pixels)
        #expect(difference < (quality >= 82 ? 2.5 : 4), "mean absolute difference \(difference) at quality \(quality)")
    }

    @Test("lossy with alpha keeps the alpha plane exactly and the visible colours closely")
    func lossyAlpha() throws {
        let image = Pixels.pattern(width: 120, height: 90, alpha: true)
        let (data, decoded) = try Self.roundTrip(image, quality: 90)
        let chunks = RIFFChunks.fourCCs(data)
        #expect(chunks == ["VP8X", "ALPH", "VP8 "])
        #expect(Set(chunks).isSubset(of: Self.allowedChunks))
        #expect(decoded.pixels.hasAlpha)
        let alphaOut = stride(from: 3, to: decoded.pixels.pixels.count, by: 4).map { decoded.pixels.pixels[$0] }
        let alphaIn = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
        #expect(alphaOut == alphaIn)
        let difference = Pixels.meanVisibleColourDifference(decoded.pixels.pixels, image.pixels)
        #expect(difference < 3, "visible colour difference \(difference)")
    }

    @Test("an image marked opaque is written without alpha even if its alpha bytes say otherwise", arguments: [nil, 80] as [Int?])
    func opaqueIgnoresAlphaBytes(quality: Int?) throws {
        let transparent = Pixels.pattern(width: 64, height: 48, alpha: true)
        let marked = PixelBuffer(width: 64, height: 48, hasAlpha: false, pixels: transparent.pixels)
        let (data, decoded) = try Self.roundTrip(marked, quality: quality)
        #expect(!RIFFChunks.fourCCs(data).contains("ALPH"))
        #expect(!decoded.pixels.hasAlpha)
        #expect(Pixels.allOpaque(decoded.pixels.pixels))
    }

    @Test("an image marked with alpha but fully opaque writes no alpha chunk")
    func opaqueWithAlphaFlag() throws {
        let opaque = Pixels.pattern(width: 64, height: 48, alpha: false)
        let marked = PixelBuffer(width: 64, height: 48, hasAlpha: true, pixels: opaque.pixels)
        let data = try WebPCodec.encode(marked, quality: 80)
        #expect(!RIFFChunks.fourCCs(data).contains("ALPH"))
    }

    @Test("lower quality gives a smaller file")
    func qualityMatters() throws {
        let image = Pixels.pattern(width: 200, height: 200, alpha: false)
        let low = try WebPCodec.encode(image, quality: 20)
        let high = try WebPCodec.encode(image, quality: 95)
        #expect(low.count < high.count)
    }

    @Test("the output's RIFF size matches its length")
    func riffSize() throws {
        for quality in [nil, 75] as [Int?] {
            let data = try WebPCodec.encode(Pixels.pattern(width: 33, height: 17, alpha: true), quality: quality)
            let riffSize = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
            #expect(riffSize + 8 == data.count)
        }
    }

    @Test("quality outside 1...100 is invalid_request", arguments: [0, -5, 101])
    func badQuality(quality: Int) {
        let error = #expect(throws: ImageError.self) {
            _ = try WebPCodec.encode(Pixels.pattern(width: 8, height: 8, alpha: false), quality: quality)
        }
        #expect(error?.code == .invalidRequest)
    }

    @Test("an image wider than WebP allows is encode_failed")
    func tooWide() {
        let wide = PixelBuffer(width: 16384, height: 1)
        let error = #expect(throws: ImageError.self) { _ = try WebPCodec.encode(wide, quality: 80) }
        #expect(error?.code == .encodeFailed)
    }
}
