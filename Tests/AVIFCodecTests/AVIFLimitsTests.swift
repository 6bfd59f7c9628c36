@testable import AVIFCodec
import ImageCore
import Testing

/// Limits are checked from the header, before any AV1 data is decoded.
@Suite("AVIF limits")
struct AVIFLimitsTests {
    static let photo = try! AVIFCodec.encode(Photo.make(width: 64, height: 48, seed: 31), quality: 82, speed: 10)
    static let alphaPhoto = try! AVIFCodec.encode(Photo.make(width: 64, height: 48, seed: 32, alpha: true), quality: 82, speed: 10)

    static func expectPixelLimit(_ data: [UInt8], _ limits: DecodeLimits, readInfoToo: Bool = true, _ label: String) {
        let decodeError = #expect(throws: ImageError.self, "\(label) decoded") {
            _ = try AVIFCodec.decode(data, limits: limits, scale: .fullSize)
        }
        #expect(decodeError?.code == .pixelLimitExceeded, "\(label): \(String(describing: decodeError))")
        guard readInfoToo else { return }
        let infoError = #expect(throws: ImageError.self, "\(label) read") { _ = try AVIFCodec.readInfo(data, limits: limits) }
        #expect(infoError?.code == .pixelLimitExceeded, "\(label): \(String(describing: infoError))")
    }

    @Test("a normal file over a small maxPixels is refused")
    func smallMaxPixels() {
        Self.expectPixelLimit(Self.photo, DecodeLimits(maxPixels: 64 * 48 - 1), "64x48 under 3071 pixels")
        #expect(throws: Never.self) { _ = try AVIFCodec.decode(Self.photo, limits: DecodeLimits(maxPixels: 64 * 48), scale: .fullSize) }
    }

    @Test("a header that says 20000x20000 is refused as over the pixel limit (beyond libavif's own ceiling)")
    func huge() throws {
        let patched = try Boxes.patchingISPE(Self.photo, width: 20_000, height: 20_000)
        Self.expectPixelLimit(patched, DecodeLimits(), "20000x20000")
        // Even with limits of our own that would allow it: libavif's ceiling (16384 x 16384 pixels) holds.
        Self.expectPixelLimit(patched, DecodeLimits(maxPixels: 1 << 40, maxDecodeBytes: 1 << 50), "20000x20000, unlimited")
    }

    @Test("a header over the default 50 MP (within libavif's ceiling) is refused by DecodeLimits")
    func overDefault() throws {
        let patched = try Boxes.patchingISPE(Self.alphaPhoto, width: 10_000, height: 8_000)
        Self.expectPixelLimit(patched, DecodeLimits(), "10000x8000")
        let wide = try Boxes.patchingISPE(Self.photo, width: 40_000, height: 2)
        Self.expectPixelLimit(wide, DecodeLimits(), "40000x2 (over libavif's dimension limit)")
    }

    @Test("maxDecodeBytes counts the RGBA output and the YUV planes")
    func decodeBytes() throws {
        // 64x48 4:2:0 8-bit: RGBA 12,288 + 2 x (3,072 + 2 x 768) = 21,504 bytes; with alpha 27,648.
        let info = try AVIFCodec.readInfo(Self.photo, limits: DecodeLimits(maxPixels: 10_000, maxDecodeBytes: 1))
        #expect(info.width == 64)
        Self.expectPixelLimit(Self.photo, DecodeLimits(maxDecodeBytes: 21_503), readInfoToo: false, "21503 bytes")
        #expect(throws: Never.self) { _ = try AVIFCodec.decode(Self.photo, limits: DecodeLimits(maxDecodeBytes: 21_504), scale: .fullSize) }
        Self.expectPixelLimit(Self.alphaPhoto, DecodeLimits(maxDecodeBytes: 27_647), readInfoToo: false, "alpha, 27647 bytes")
        #expect(throws: Never.self) { _ = try AVIFCodec.decode(Self.alphaPhoto, limits: DecodeLimits(maxDecodeBytes: 27_648), scale: .fullSize) }
    }

    @Test("an AV1 frame larger than the header declares is refused, not decoded past the limits")
    func frameLargerThanHeader() throws {
        let patched = try Boxes.patchingISPE(Self.photo, width: 32, height: 24)
        let info = try AVIFCodec.readInfo(patched, limits: DecodeLimits())
        #expect(info.width == 32 && info.height == 24)
        let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode(patched, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .corruptImage, "\(String(describing: error))")
    }

    @Test("an image sequence listing more frames than libavif is allowed to index is refused over the limit")
    func tooManyFrames() throws {
        let sequence = try LibAVIF.encodeSequence([Photo.make(width: 32, height: 32, seed: 33), Photo.make(width: 32, height: 32, seed: 34)])
        #expect(try AVIFCodec.readInfo(sequence, limits: DecodeLimits()).isAnimated)
        func find(_ type: String) throws -> Int {
            let t = Array(type.utf8)
            return try #require((0..<sequence.count - 4).first { Array(sequence[$0..<$0 + 4]) == t }, "no \(type)")
        }
        let stsz = try find("stsz"), stsc = try find("stsc")
        // Every sample one byte, and one chunk of `count` samples: the sample table of a long
        // animation, from a file of a few hundred bytes.
        func patched(_ count: UInt32) -> [UInt8] {
            var data = sequence
            data.replaceSubrange(stsz + 8..<stsz + 12, with: Boxes.be32(1))
            data.replaceSubrange(stsz + 12..<stsz + 16, with: Boxes.be32(count))
            data.replaceSubrange(stsc + 16..<stsc + 20, with: Boxes.be32(count))
            return data
        }
        Self.expectPixelLimit(patched(AVIFDecoder.frameCountLimit + 1), DecodeLimits(), "\(AVIFDecoder.frameCountLimit + 1) frames")
        // Within the limit, the samples point past the end of the file.
        let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.decode(patched(AVIFDecoder.frameCountLimit - 1), limits: DecodeLimits(), scale: .fullSize) }
        #expect(error.map { $0.code.isDataRefusal } == true, "\(String(describing: error))")
    }
}
