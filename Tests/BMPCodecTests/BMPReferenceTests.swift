import BMPCodec
import Foundation
import ImageCore
import Testing
import TestSupport

/// Every committed BMP decoded by BMPCodec and by Pillow (`Image.open(f).convert('RGBA')`): equal
/// pixel for pixel, except where Pillow is known to differ from browsers; those files are checked
/// against expected pixels worked out by hand, or Pillow's decode of an equivalent file.
@Suite("BMP against Pillow", .requires(Pillow.available, Comment(rawValue: Pillow.missing)))
struct BMPReferenceTests {
    static let references: [String: Result<PixelBuffer, Pillow.Failure>] = {
        let urls = BMPTestFiles.all.map(BMPTestFiles.url)
        let decoded = (try? Pillow.decode(urls)) ?? [:]
        return Dictionary(uniqueKeysWithValues: decoded.map { ($0.key.lastPathComponent, $0.value) })
    }()

    static func reference(_ name: String) throws -> PixelBuffer {
        let result = try #require(references[name], "Pillow gave nothing for \(name)")
        return try result.get()
    }

    static func decode(_ name: String) throws -> DecodedImage {
        try BMPCodec.decode(try BMPTestFiles.bytes(name), limits: DecodeLimits(), scale: .fullSize)
    }

    /// The files both decoders must read identically. (Pillow's RLE decoder is right for these two:
    /// every pixel painted, no delta, absolute runs of even length.)
    static let exact = [
        "pillow_rgb24.bmp", "pillow_bgrx32.bmp", "pillow_pal8.bmp", "pillow_gray8.bmp", "pillow_1bit.bmp",
        "pal4.bmp", "pal1_colors.bmp", "pal8_short_palette.bmp", "pal8_index_past_palette.bmp",
        "bgra32_v4_bitfields.bmp", "rgba32_v5_bitfields.bmp", "topdown_rgb24.bmp", "topdown_bgra32_v5.bmp",
        "os2_core_rgb24.bmp", "os2_core_pal8.bmp", "os2v2_pal4.bmp", "rle8.bmp", "rle4.bmp",
        "v5_srgb.bmp", "v5_embedded_profile.bmp",
    ]

    @Test("decodes exactly as Pillow does", arguments: exact)
    func matchesPillow(_ name: String) throws {
        let ours = try Self.decode(name)
        let expected = try Self.reference(name)
        #expect(differences(ours.pixels, expected).isEmpty, "\(name): \(differences(ours.pixels, expected))")
        #expect(ours.pixels.hasAlpha == expected.hasAlpha, "\(name)")
        #expect(ours.info.width == expected.width && ours.info.height == expected.height)
        #expect(ours.info.format == .bmp && ours.info.orientation == .up && !ours.info.isAnimated)
        #expect(ours.samples == .rgba && ours.scaleX == 1 && ours.scaleY == 1)
        let info = try BMPCodec.readInfo(try BMPTestFiles.bytes(name), limits: DecodeLimits())
        #expect(info.width == ours.info.width && info.height == ours.info.height)
    }

    @Test("every committed file is covered by exactly one comparison")
    func everyFileCovered() {
        let covered = Set(Self.exact + Self.sixteenBit.map(\.0) + Self.handChecked)
        #expect(covered == Set(BMPTestFiles.all), "uncovered: \(Set(BMPTestFiles.all).subtracting(covered).sorted())")
        #expect(BMPTestFiles.all.count >= 30, "TestImages/bmp is missing files: run Scripts/bmp_gif_testimages.py")
    }

    static let handChecked = [
        "argb16_4444_v3.bmp", "rgba32_alphabitfields.bmp", "bgra32_all_alpha_zero.bmp", "rle8_delta_skips.bmp", "rle4_odd_runs_skips.bmp",
        "bgra32_v5_bi_rgb_alpha_mask.bmp",
    ]

    /// 16-bit files and the width of each channel. Pillow scales an n-bit value v to floor(v * 255 / max);
    /// thumbd rounds, as Chromium does, so each of Pillow's values is mapped back to the n-bit value it
    /// came from and scaled with rounding.
    static let sixteenBit: [(String, [Int])] = [
        ("rgb16_555.bmp", [5, 5, 5]), ("rgb16_565_bitfields.bmp", [5, 6, 5]), ("rgb16_565_v2.bmp", [5, 6, 5]),
        // Its V4 header's alpha mask (0xFF000000) lies past the 16-bit pixel: dropped, opaque.
        ("rgb16_565_v4_alpha_past_pixel.bmp", [5, 6, 5]),
    ]

    @Test("16-bit pixels: Pillow's values, rounded as Chromium scales them", arguments: sixteenBit)
    func sixteenBitPixels(_ name: String, _ widths: [Int]) throws {
        let pillow = try Self.reference(name)
        var expected = pillow
        for c in 0..<3 {
            let maximum = (1 << widths[c]) - 1
            let codeOf = Dictionary(uniqueKeysWithValues: (0...maximum).map { ($0 * 255 / maximum, $0) })
            for i in stride(from: c, to: expected.pixels.count, by: 4) {
                let code = try #require(codeOf[Int(pillow.pixels[i])], "\(name): \(pillow.pixels[i]) is no \(widths[c])-bit value")
                expected.pixels[i] = UInt8((code * 255 + maximum / 2) / maximum)
            }
        }
        let ours = try Self.decode(name)
        #expect(differences(ours.pixels, expected).isEmpty, "\(name): \(differences(ours.pixels, expected))")
        #expect(!ours.pixels.hasAlpha)
        // At most one level from Pillow anywhere.
        #expect(zip(ours.pixels.pixels, pillow.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test("BI_ALPHABITFIELDS (Pillow cannot read it) decodes as the same pixels with BI_BITFIELDS in a V5 header")
    func alphaBitfields() throws {
        let ours = try Self.decode("rgba32_alphabitfields.bmp")
        let sameInV5 = try Self.reference("rgba32_v5_bitfields.bmp")
        #expect(differences(ours.pixels, sameInV5).isEmpty, "\(differences(ours.pixels, sameInV5))")
        #expect(ours.pixels.hasAlpha && ours.info.hasAlpha)
        #expect(ours.pixels.pixel(x: 0, y: 0).a == 0)
    }

    @Test("BI_RGB with a V5 header's alpha mask has alpha, as in Chromium (Pillow ignores it): the pixels of the same bytes with BI_BITFIELDS")
    func biRGBWithAlphaMask() throws {
        let ours = try Self.decode("bgra32_v5_bi_rgb_alpha_mask.bmp")
        let sameAsBitfields = try Self.reference("bgra32_v4_bitfields.bmp")
        #expect(differences(ours.pixels, sameAsBitfields).isEmpty, "\(differences(ours.pixels, sameAsBitfields))")
        #expect(ours.pixels.hasAlpha && sameAsBitfields.hasAlpha)
        let pillow = try Self.reference("bgra32_v5_bi_rgb_alpha_mask.bmp")
        #expect(!pillow.hasAlpha, "Pillow now honours the alpha mask: compare with it")
    }

    @Test("an alpha mask whose values are all 0 is opaque, as browsers show it (Pillow makes it invisible)")
    func allAlphaZero() throws {
        let pillow = try Self.reference("bgra32_all_alpha_zero.bmp")
        #expect(stride(from: 3, to: pillow.pixels.count, by: 4).allSatisfy { pillow.pixels[$0] == 0 })
        var expected = pillow
        for i in stride(from: 3, to: expected.pixels.count, by: 4) { expected.pixels[i] = 255 }
        let ours = try Self.decode("bgra32_all_alpha_zero.bmp")
        #expect(differences(ours.pixels, expected).isEmpty, "\(differences(ours.pixels, expected))")
        #expect(!ours.pixels.hasAlpha && !ours.info.hasAlpha)
        // readInfo cannot know before the pixels are read: the mask says alpha.
        #expect(try BMPCodec.readInfo(try BMPTestFiles.bytes("bgra32_all_alpha_zero.bmp"), limits: DecodeLimits()).hasAlpha)
    }

    @Test("4-4-4-4 with alpha in a V3 header (Pillow has no unpacker): a 4-bit value v reads 17 v")
    func argb4444() throws {
        let ours = try Self.decode("argb16_4444_v3.bmp")
        #expect(ours.pixels.width == 16 && ours.pixels.height == 16 && ours.pixels.hasAlpha)
        for y in 0..<16 {
            for x in 0..<16 {
                let expected = (UInt8(x * 17), UInt8(y * 17), UInt8((x + y) % 16 * 17), UInt8((15 - x) * 17))
                #expect(ours.pixels.pixel(x: x, y: y) == expected, "(\(x), \(y))")
            }
        }
    }

    /// Entry i of the palettes Scripts/bmp_gif_testimages.py writes.
    static func paletteColor(_ i: Int) -> (UInt8, UInt8, UInt8, UInt8) {
        (UInt8(i * 20 % 256), UInt8(255 - i * 20 % 256), UInt8(i * 37 % 256), 255)
    }

    static let clear: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)

    static func expectImage(_ ours: PixelBuffer, _ rows: [[(UInt8, UInt8, UInt8, UInt8)]], _ name: String) {
        #expect(ours.height == rows.count && ours.width == rows[0].count, "\(name)")
        for (y, row) in rows.enumerated() {
            for (x, expected) in row.enumerated() where ours.pixel(x: x, y: y) != expected {
                Issue.record("\(name) (\(x), \(y)): \(ours.pixel(x: x, y: y)), expected \(expected)")
            }
        }
    }

    @Test("RLE8 with a delta, early ends of line and an early end of bitmap: unpainted pixels are transparent")
    func rle8Skips() throws {
        // Pillow paints skipped pixels with palette entry 0 and reads a delta's two bytes as four, so
        // the expected image is spelled out from the stream in the script (stored row s is row 7 - s).
        let c = Self.paletteColor, o = Self.clear
        var rows = [[(UInt8, UInt8, UInt8, UInt8)]](repeating: Array(repeating: o, count: 16), count: 8)
        rows[7] = Array(repeating: c(1), count: 16)
        rows[6] = Array(repeating: c(2), count: 4) + Array(repeating: o, count: 12)
        rows[5] = Array(repeating: o, count: 8) + Array(repeating: c(3), count: 8)
        rows[4] = [c(4), c(5), c(6), c(7), c(8)] + Array(repeating: c(9), count: 11)
        rows[3] = Array(repeating: c(10), count: 3) + Array(repeating: o, count: 13)
        let ours = try Self.decode("rle8_delta_skips.bmp")
        Self.expectImage(ours.pixels, rows, "rle8_delta_skips.bmp")
        #expect(ours.pixels.hasAlpha && ours.info.hasAlpha)
        if case .failure = Self.references["rle8_delta_skips.bmp"] {} else {
            Issue.record("Pillow now reads rle8_delta_skips.bmp: compare with it")
        }
    }

    @Test("RLE4 with odd absolute runs, a delta and an early end of bitmap")
    func rle4Skips() throws {
        // Pillow reads an odd absolute run of n nibbles as n - 1 (floor(n / 2) bytes).
        let c = Self.paletteColor, o = Self.clear
        var rows = [[(UInt8, UInt8, UInt8, UInt8)]](repeating: Array(repeating: o, count: 12), count: 6)
        rows[5] = [c(1), c(2), c(3), c(4), c(5), c(6), c(7), c(6), c(7), c(6), c(7), c(6)]
        rows[4] = [o, o, o, c(8), c(9), c(10), o, o, o, o, o, o]
        rows[3] = (0..<12).map { c($0 % 2 == 0 ? 11 : 12) }
        let ours = try Self.decode("rle4_odd_runs_skips.bmp")
        Self.expectImage(ours.pixels, rows, "rle4_odd_runs_skips.bmp")
        #expect(ours.pixels.hasAlpha)
        // Pillow 13 refuses the file ("not enough image data": the early end of bitmap); earlier
        // versions read it with the short runs above. Either way the rows above are the reference.
        if case .success(let pillow) = try #require(Self.references["rle4_odd_runs_skips.bmp"], "Pillow gave nothing") {
            #expect(differences(ours.pixels, pillow) != "", "Pillow now agrees: compare with it")
        }
    }

    @Test("fully painted RLE is opaque")
    func fullRLEOpaque() throws {
        for name in ["rle8.bmp", "rle4.bmp"] {
            let ours = try Self.decode(name)
            #expect(!ours.pixels.hasAlpha && !ours.info.hasAlpha, "\(name)")
            #expect(try BMPCodec.readInfo(try BMPTestFiles.bytes(name), limits: DecodeLimits()).hasAlpha, "\(name): RLE may skip pixels")
        }
    }
}
