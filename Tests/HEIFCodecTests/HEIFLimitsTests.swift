@testable import HEIFCodec
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// Limits are checked from the header, and from the grid descriptor libheif would allocate, before
/// any HEVC data is decoded.
@Suite("HEIC limits", .requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEIFLimitsTests {
    static let photo = try! HEIFEnc.encode(PhonePhoto.synthetic(width: 64, height: 48, seed: 7))
    /// 63x31: heif-enc writes a 1x1 grid whose descriptor (in idat) crops the 64x32 tile.
    static let grid = try! HEIFEnc.encode(PhonePhoto.synthetic(width: 63, height: 31, seed: 8))

    static func expectPixelLimit(_ data: [UInt8], _ limits: DecodeLimits, readInfoToo: Bool = true, _ label: String) {
        let decodeError = #expect(throws: ImageError.self, "\(label) decoded") {
            _ = try HEIFCodec.decode(data, limits: limits, scale: .fullSize)
        }
        #expect(decodeError?.code == .pixelLimitExceeded, "\(label): \(String(describing: decodeError))")
        guard readInfoToo else { return }
        let infoError = #expect(throws: ImageError.self, "\(label) read") { _ = try HEIFCodec.readInfo(data, limits: limits) }
        #expect(infoError?.code == .pixelLimitExceeded, "\(label): \(String(describing: infoError))")
    }

    @Test("a normal file over a small maxPixels is refused, at the limit it decodes")
    func smallMaxPixels() {
        Self.expectPixelLimit(Self.photo, DecodeLimits(maxPixels: 64 * 48 - 1), "64x48 under 3071 pixels")
        #expect(throws: Never.self) { _ = try HEIFCodec.decode(Self.photo, limits: DecodeLimits(maxPixels: 64 * 48), scale: .fullSize) }
    }

    @Test("an ispe over the default 50 MP, or over libheif's side limit, is refused from the header")
    func hugeISPE() throws {
        Self.expectPixelLimit(try HEIFBoxes.patchingISPE(Self.photo, width: 10_000, height: 8_000), DecodeLimits(), "10000x8000")
        Self.expectPixelLimit(try HEIFBoxes.patchingISPE(Self.photo, width: 40_000, height: 2), DecodeLimits(), "40000x2")
        Self.expectPixelLimit(try HEIFBoxes.patchingISPE(Self.photo, width: 40_000, height: 40_000),
                              DecodeLimits(maxPixels: 1 << 40, maxDecodeBytes: 1 << 50), "40000x40000 within our limits: libheif's")
    }

    @Test("a tile grid over the pixel limit is refused, even when its ispe says small (libheif would allocate the grid's size)")
    func gridOverLimit() throws {
        #expect(try HEIFCodec.readInfo(Self.grid, limits: DecodeLimits()).width == 63)
        // The grid and its ispe both say 9000x9000 (81 MP).
        let honest = try HEIFBoxes.patchingGrid(try HEIFBoxes.patchingISPE(Self.grid, width: 9000, height: 9000), width: 9000, height: 9000)
        Self.expectPixelLimit(honest, DecodeLimits(), "9000x9000 grid")
        // Only the grid descriptor says 30000x30000; the ispe still says 63x31. heif-convert took 2 GiB on this.
        let lying = try HEIFBoxes.patchingGrid(Self.grid, width: 30_000, height: 30_000)
        Self.expectPixelLimit(lying, DecodeLimits(), "30000x30000 grid behind a 63x31 ispe")
        // Under a small limit, a grid just over it.
        Self.expectPixelLimit(try HEIFBoxes.patchingGrid(Self.grid, width: 64, height: 32), DecodeLimits(maxPixels: 63 * 31), "64x32 grid, limit 63x31")
        // ImageCodecs says the same, with the stable code.
        let error = #expect(throws: ImageError.self) { _ = try ImageCodecs.decode(lying) }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test("maxDecodeBytes counts libheif's planes and both RGBA images")
    func decodeBytes() throws {
        // 64x48, 8-bit, no alpha: max(2 x 3 x 3072 + 4 x 3072, 2 x 4 x 3072) = 30,720 bytes.
        let info = try HEIFCodec.readInfo(Self.photo, limits: DecodeLimits(maxPixels: 10_000, maxDecodeBytes: 1))
        #expect(info.width == 64)
        Self.expectPixelLimit(Self.photo, DecodeLimits(maxDecodeBytes: 30_719), readInfoToo: false, "30719 bytes")
        #expect(throws: Never.self) { _ = try HEIFCodec.decode(Self.photo, limits: DecodeLimits(maxDecodeBytes: 30_720), scale: .fullSize) }
    }
}
