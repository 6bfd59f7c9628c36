import Foundation
import ImageCore
import Testing
@testable import JXLCodec

/// Limits are checked from the basic info, before libjxl sets up a frame or thumbd allocates the
/// output: a header that claims a huge size is refused at once, whatever follows it.
@Suite("JPEG XL limits")
struct JXLLimitsTests {
    static func expectPixelLimit(_ data: [UInt8], _ limits: DecodeLimits, readInfoToo: Bool = true, _ label: String) {
        let start = Date()
        let decodeError = #expect(throws: ImageError.self, "\(label) decoded") {
            _ = try JXLCodec.decode(data, limits: limits, scale: .fullSize)
        }
        #expect(decodeError?.code == .pixelLimitExceeded, "\(label): \(String(describing: decodeError))")
        if readInfoToo {
            let infoError = #expect(throws: ImageError.self, "\(label) read") { _ = try JXLCodec.readInfo(data, limits: limits) }
            #expect(infoError?.code == .pixelLimitExceeded, "\(label): \(String(describing: infoError))")
        }
        // Refused from the header: no pixel work was done.
        #expect(Date().timeIntervalSince(start) < 1, "\(label) took \(Date().timeIntervalSince(start)) s")
    }

    /// A container around a bare codestream: signature box, ftyp, one jxlc box.
    static func container(_ codestream: [UInt8]) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return [0, 0, 0, 0x0C] + Array("JXL ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
            + be32(20) + Array("ftypjxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8)
            + be32(8 + codestream.count) + Array("jxlc".utf8) + codestream
    }

    @Test("a normal file over a small maxPixels is refused; at the limit it decodes")
    func smallMaxPixels() throws {
        let data = try JXLFiles.bytes("lossless_rgb_48x32.jxl")
        Self.expectPixelLimit(data, DecodeLimits(maxPixels: 48 * 32 - 1), "48x32 under 1535 pixels")
        #expect(throws: Never.self) { _ = try JXLCodec.decode(data, limits: DecodeLimits(maxPixels: 48 * 32), scale: .fullSize) }
        // The container form too, and the displayed (turned) size of an oriented file.
        Self.expectPixelLimit(try JXLFiles.bytes("container_lossy_rgb_48x32.jxl"), DecodeLimits(maxPixels: 1000), "container")
        Self.expectPixelLimit(try JXLFiles.bytes("orientation_6.jxl"), DecodeLimits(maxPixels: 24 * 16 - 1), "orientation 6")
    }

    @Test("maxDecodeBytes counts the RGBA output and 9 bytes a plane of libjxl's work (twice for animations)")
    func decodeBytes() throws {
        // 48x32 RGB: (4 + 3 x 9) x 1536 = 47,616. 32x24 RGBA: (4 + 4 x 9) x 768 = 30,720.
        // 24x16 animated RGB: (4 + 3 x 9 x 2) x 384 = 22,272.
        for (name, bytes) in [("lossless_rgb_48x32.jxl", 47_616), ("lossless_rgba_32x24.jxl", 30_720), ("animated_3frames_24x16.jxl", 22_272)] {
            let data = try JXLFiles.bytes(name)
            Self.expectPixelLimit(data, DecodeLimits(maxDecodeBytes: bytes - 1), readInfoToo: false, "\(name) under \(bytes) bytes")
            #expect(throws: Never.self, "\(name)") { _ = try JXLCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: bytes), scale: .fullSize) }
            // readInfo allocates nothing: the byte limit is not its concern.
            #expect(throws: Never.self) { _ = try JXLCodec.readInfo(data, limits: DecodeLimits(maxDecodeBytes: 1)) }
        }
    }

    @Test("a header claiming 100000 x 100000 is refused before anything is allocated, bare or in a container")
    func hugeHeader() throws {
        let original = try JXLFiles.bytes("lossless_rgb_48x32.jxl")
        let huge = try JXLCodestreamEdit.resized(original, width: 100_000, height: 100_000)
        // The edit is what libjxl reads: the size is 100000 x 100000 when the limits allow it.
        let size = try JXLCodestreamEdit.size(huge)
        #expect(size.width == 100_000 && size.height == 100_000)
        let unlimited = DecodeLimits(maxPixels: Int.max, maxDecodeBytes: Int.max)
        let info = try JXLCodec.readInfo(huge, limits: unlimited)
        #expect(info.width == 100_000 && info.height == 100_000)

        Self.expectPixelLimit(huge, DecodeLimits(), "100000x100000")
        Self.expectPixelLimit(Self.container(huge), DecodeLimits(), "100000x100000 in a container")
        // Within a raised pixel limit, the working memory (10^10 pixels x 31 bytes) is refused instead.
        Self.expectPixelLimit(huge, DecodeLimits(maxPixels: 1 << 40), readInfoToo: false, "100000x100000 under a raised pixel limit")
        Self.expectPixelLimit(try JXLCodestreamEdit.resized(original, width: 1 << 30, height: 1 << 30), DecodeLimits(), "2^30 x 2^30")
        Self.expectPixelLimit(try JXLCodestreamEdit.resized(original, width: 1 << 30, height: 1), DecodeLimits(), "2^30 x 1")
    }

    /// A valid file of 77 bytes (libjxl's encoder: one 8x8 layer on a 100000 x 100000 canvas, level
    /// 10, in the container): libjxl would fill the whole canvas. Refused from its header; and at
    /// 7000 x 7000 (49 MP, under the default pixel limit) by the working-memory limit.
    @Test("a decompression bomb (an 8x8 layer on a huge canvas) is refused from its header")
    func decompressionBomb() throws {
        let layer = PixelBuffer(width: 8, height: 8, hasAlpha: true)
        let bomb = try JXLTestWriter.lossless(layer, canvas: (100_000, 100_000))
        #expect(bomb.count < 200, "\(bomb.count) bytes")
        #expect(try JXLCodec.readInfo(bomb, limits: DecodeLimits(maxPixels: Int.max)).width == 100_000)
        Self.expectPixelLimit(bomb, DecodeLimits(), "100000x100000 canvas")
        // embeddedColor reads the headers only, whatever the size.
        #expect(try JXLCodec.embeddedColor(in: bomb) == .sRGB)

        let underPixelLimit = try JXLTestWriter.lossless(layer, canvas: (7_000, 7_000))
        #expect(throws: Never.self) { _ = try JXLCodec.readInfo(underPixelLimit, limits: DecodeLimits()) }
        Self.expectPixelLimit(underPixelLimit, DecodeLimits(), readInfoToo: false, "7000x7000 canvas: 49 MP x 40 bytes")
        // A small canvas decodes: the layer where it was drawn, transparent elsewhere.
        let small = try JXLCodec.decode(try JXLTestWriter.lossless(layer, canvas: (40, 30)), limits: DecodeLimits(), scale: .fullSize)
        #expect(small.info.width == 40 && small.pixels.pixel(x: 30, y: 20).a == 0)
    }

    @Test("a header edited to its own size still parses the same (the edit tool is faithful)")
    func editRoundTrip() throws {
        let original = try JXLFiles.bytes("lossy_rgb_48x32.jxl")
        let same = try JXLCodestreamEdit.resized(original, width: 48, height: 32)
        let info = try JXLCodec.readInfo(same, limits: DecodeLimits())
        #expect(info == (try JXLCodec.readInfo(original, limits: DecodeLimits())))
        // The frames behind may be shifted out of byte alignment: decoded or refused, never a crash.
        do {
            _ = try JXLCodec.decode(same, limits: DecodeLimits(), scale: .fullSize)
        } catch {
            #expect([.corruptImage, .truncatedImage].contains(error.code), "\(error)")
        }
    }
}
