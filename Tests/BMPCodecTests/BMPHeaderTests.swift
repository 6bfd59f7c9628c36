import BMPCodec
import Foundation
import ImageCore
import Testing
import TestSupport

/// What the headers say and what BMPCodec refuses: sizes, compressions, masks, colour spaces, limits.
@Suite("BMP headers")
struct BMPHeaderTests {
    static func decodeError(_ data: [UInt8], limits: DecodeLimits = DecodeLimits()) -> ImageError? {
        refusal { () throws(ImageError) in try BMPCodec.decode(data, limits: limits, scale: .fullSize) }
    }

    static func infoError(_ data: [UInt8], limits: DecodeLimits = DecodeLimits()) -> ImageError? {
        refusal { () throws(ImageError) in try BMPCodec.readInfo(data, limits: limits) }
    }

    @Test("a header claiming 100000 x 100000 is pixel_limit_exceeded, before its missing pixel data is noticed")
    func hugeHeader() {
        let data = BMPBuilder.file(BMPBuilder.infoHeader(width: 100_000, height: 100_000, bits: 24), pixels: [])
        #expect(data.count == 54)
        // Were the pixel data checked (or allocated) first, this 54-byte file would be truncated_image.
        #expect(Self.decodeError(data)?.code == .pixelLimitExceeded)
        #expect(Self.infoError(data)?.code == .pixelLimitExceeded)
        let topDown = BMPBuilder.file(BMPBuilder.infoHeader(width: 100_000, height: -100_000, bits: 8), pixels: [])
        #expect(Self.decodeError(topDown)?.code == .pixelLimitExceeded)
        let extreme = BMPBuilder.file(BMPBuilder.infoHeader(width: Int(Int32.max), height: Int(Int32.min), bits: 32), pixels: [])
        #expect(Self.decodeError(extreme)?.code == .pixelLimitExceeded)
        // The colour question needs no pixels: no limit applies, and the missing pixel array is reported.
        #expect(refusal { () throws(ImageError) in try BMPCodec.embeddedColor(in: data) }?.code == .truncatedImage)
    }

    @Test("the limits are DecodeLimits': pixels and decode bytes")
    func limits() throws {
        let data = BMPBuilder.rgb24(width: 40, height: 30)
        _ = try BMPCodec.decode(data, limits: DecodeLimits(maxPixels: 1200), scale: .fullSize)
        #expect(Self.decodeError(data, limits: DecodeLimits(maxPixels: 1199))?.code == .pixelLimitExceeded)
        #expect(Self.decodeError(data, limits: DecodeLimits(maxDecodeBytes: 40 * 30 * 4 - 1))?.code == .pixelLimitExceeded)
        _ = try BMPCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 40 * 30 * 4), scale: .fullSize)
    }

    @Test("a scale hint is ignored: BMP decodes at full size")
    func scaleIgnored() throws {
        let image = try BMPCodec.decode(BMPBuilder.rgb24(width: 40, height: 30), limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.1))
        #expect(image.pixels.width == 40 && image.pixels.height == 30 && image.scaleX == 1)
        #expect(image.pixels.pixel(x: 39, y: 29) == (10, 20, 30, 255))
    }

    @Test("BI_JPEG, BI_PNG, CMYK and the OS/2 Huffman and RLE24 compressions are unsupported, with a reason")
    func unsupportedCompressions() {
        for (size, compression, word) in [(40, 4, "JPEG"), (124, 5, "PNG"), (40, 11, "CMYK"), (64, 3, "Huffman"), (64, 4, "RLE24")] {
            let data = BMPBuilder.file(BMPBuilder.infoHeader(size: size, width: 8, height: 8, bits: 24, compression: compression), pixels: [UInt8](repeating: 0, count: 200))
            let error = Self.decodeError(data)
            #expect(error?.code == .unsupportedFormat, "\(compression): \(String(describing: error))")
            #expect(error?.message.contains(word) == true, "\(String(describing: error))")
            #expect(Self.infoError(data)?.code == .unsupportedFormat)
        }
        let twoBit = BMPBuilder.file(BMPBuilder.infoHeader(width: 8, height: 2, bits: 2), after: [UInt8](repeating: 0, count: 16), pixels: [UInt8](repeating: 0, count: 8))
        #expect(Self.decodeError(twoBit)?.code == .unsupportedFormat)
    }

    @Test("masks must be contiguous, must not overlap and must give some colour; bits past the pixel are dropped")
    func badMasks() throws {
        let cases: [([Int], String)] = [
            ([0xFF00FF, 0x00FF00, 0x0000FF], "overlap"),
            ([0xF0F000, 0x000F00, 0x0000FF], "contiguous"),
            ([0, 0, 0], "zero"),
        ]
        for (masks, word) in cases {
            let error = Self.decodeError(BMPBuilder.bitfields32(masks: masks, pixels: [0, 0, 0, 0], width: 2))
            #expect(error?.code == .corruptImage, "\(masks)")
            #expect(error?.message.contains(word) == true, "\(String(describing: error))")
        }
        // 16-bit pixels whose red mask lies wholly past bit 15: dropped, so red reads 0.
        let header = BMPBuilder.infoHeader(width: 2, height: 1, bits: 16, compression: 3)
        let wide = BMPBuilder.file(header, after: [0x1F0000, 0x07E0, 0x001F].flatMap(BMPBuilder.le32), pixels: [0xFF, 0xFF, 0, 0])
        let image = try BMPCodec.decode(wide, limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.pixel(x: 0, y: 0) == (0, 255, 255, 255))
        // The same with a BI_RGB V5 header whose alpha mask overlaps the fixed 5-5-5 colours: corrupt.
        let overlap = BMPBuilder.file(BMPBuilder.infoHeader(size: 124, width: 2, height: 1, bits: 16,
                                                            tail: [0, 0, 0].flatMap(BMPBuilder.le32) + BMPBuilder.le32(0x001F)),
                                      pixels: [0, 0, 0, 0])
        #expect(Self.decodeError(overlap)?.message.contains("overlap") == true)
    }

    @Test("10-bit channels (10-10-10-2) scale with rounding: v * 255 / 1023")
    func tenBitChannels() throws {
        let masks = [0x3FF0_0000, 0x000F_FC00, 0x0000_03FF]
        // red 1023, green 512, blue 1; red 0, green 2, blue 511.
        let pixels: [UInt32] = [1023 << 20 | 512 << 10 | 1, 0 << 20 | 2 << 10 | 511]
        let image = try BMPCodec.decode(BMPBuilder.bitfields32(masks: masks, pixels: pixels, width: 2), limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.pixel(x: 0, y: 0) == (255, 128, 0, 255))
        #expect(image.pixels.pixel(x: 1, y: 0) == (0, 0, 127, 255))
        #expect(!image.pixels.hasAlpha)
    }

    @Test("planes other than 1, empty or negative widths, a zero height are corrupt")
    func badFields() {
        let cases: [[UInt8]] = [
            BMPBuilder.infoHeader(width: 4, height: 4, bits: 24, planes: 2),
            BMPBuilder.infoHeader(width: 0, height: 4, bits: 24),
            BMPBuilder.infoHeader(width: -4, height: 4, bits: 24),
            BMPBuilder.infoHeader(width: 4, height: 0, bits: 24),
            BMPBuilder.infoHeader(width: 4, height: 4, bits: 7),
            BMPBuilder.infoHeader(width: 4, height: 4, bits: 24, compression: 99),
            BMPBuilder.infoHeader(width: 4, height: 4, bits: 24, compression: 1),  // RLE8 needs 8 bits
        ]
        for header in cases {
            let error = Self.decodeError(BMPBuilder.file(header, pixels: [UInt8](repeating: 0, count: 64)))
            #expect(error?.code == .corruptImage, "\(String(describing: error))")
        }
    }

    @Test("header sizes: OS/2 2.x short headers are unsupported, anything else unknown is corrupt")
    func headerSizes() {
        let short = BMPBuilder.file(BMPBuilder.infoHeader(size: 16, width: 4, height: 4, bits: 24), pixels: [UInt8](repeating: 0, count: 64))
        #expect(Self.decodeError(short)?.code == .unsupportedFormat)
        let odd = BMPBuilder.file(BMPBuilder.infoHeader(size: 200, width: 4, height: 4, bits: 24), pixels: [UInt8](repeating: 0, count: 64))
        #expect(Self.decodeError(odd)?.code == .corruptImage)
    }

    @Test("the pixel data offset: inside the headers is corrupt, past the end is truncated; a short array is truncated")
    func pixelOffsets() throws {
        let valid = BMPBuilder.rgb24(width: 5, height: 3)
        _ = try BMPCodec.decode(valid, limits: DecodeLimits(), scale: .fullSize)
        let header = BMPBuilder.infoHeader(width: 5, height: 3, bits: 24)
        let pixels = Array(valid[54...])
        #expect(Self.decodeError(BMPBuilder.file(header, pixels: pixels, pixelOffset: 40))?.code == .corruptImage)
        #expect(Self.decodeError(BMPBuilder.file(header, pixels: pixels, pixelOffset: 5000))?.code == .truncatedImage)
        // Rows of 5 pixels are 15 bytes padded to 16: three rows need 48 bytes, the last row's padding included.
        #expect(pixels.count == 48)
        let short = Self.decodeError(Array(valid.dropLast()))
        #expect(short?.code == .truncatedImage)
        #expect(short?.message.contains("3 rows of 16 bytes") == true, "\(String(describing: short))")
    }

    @Test("RLE: top-down is corrupt; a stream without its end is truncated; runs past the row are cut; absolute runs and deltas may not leave the image")
    func rleRules() throws {
        // 4x2: a run of 3, a run of 9 cut at the row's end, end of bitmap.
        let clipped = try BMPCodec.decode(BMPBuilder.rle8(width: 4, height: 2, stream: [3, 1, 9, 2, 0, 0, 4, 3, 0, 1]),
                                          limits: DecodeLimits(), scale: .fullSize)
        #expect(clipped.pixels.pixel(x: 3, y: 1) == (160, 160, 160, 255))
        #expect(clipped.pixels.pixel(x: 0, y: 0) == (255, 255, 255, 255))
        #expect(!clipped.pixels.hasAlpha)
        // Every row done, end-of-bitmap missing: complete, accepted.
        _ = try BMPCodec.decode(BMPBuilder.rle8(width: 2, height: 1, stream: [2, 1, 0, 0]), limits: DecodeLimits(), scale: .fullSize)

        let cases: [([UInt8], ImageError.Code, Bool)] = [
            ([4, 1, 0, 1], .corruptImage, true),                      // top-down RLE
            ([4, 1, 0, 0], .truncatedImage, false),                   // a row left, no end of bitmap
            ([4, 1, 0], .truncatedImage, false),                      // cut inside a pair
            ([0, 5, 1, 2, 3, 1, 2, 0], .corruptImage, false),         // absolute run of 5 in a 4-pixel row
            ([0, 3, 1, 2], .truncatedImage, false),                   // absolute run cut short
            ([0, 2, 5, 0, 0, 1], .corruptImage, false),               // delta past the row's end
            ([0, 2, 0, 3, 0, 1], .corruptImage, false),               // delta past the top row
            ([0, 2, 1], .truncatedImage, false),                      // delta cut short
        ]
        for (stream, code, topDown) in cases {
            let error = Self.decodeError(BMPBuilder.rle8(width: 4, height: 2, stream: stream, topDown: topDown))
            #expect(error?.code == code, "\(stream): \(String(describing: error))")
        }
        // biSizeImage larger than what the file holds.
        let long = BMPBuilder.rle8(width: 4, height: 2, stream: [4, 1, 0, 1], imageSize: 400)
        #expect(Self.decodeError(long)?.code == .truncatedImage)
    }

    @Test("not a BMP: corrupt; an OS/2 bitmap array: unsupported; empty and cut signatures")
    func signatures() {
        #expect(Self.decodeError([])?.code == .corruptImage)
        #expect(Self.decodeError([0x42])?.code == .truncatedImage)
        #expect(Self.decodeError(Array("BM".utf8))?.code == .truncatedImage)
        #expect(Self.decodeError(Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 60))?.code == .corruptImage)
        #expect(Self.decodeError(Array("BA".utf8) + [UInt8](repeating: 0, count: 60))?.code == .unsupportedFormat)
        #expect(BMPCodec.sniff(BMPBuilder.rgb24(width: 1, height: 1)) && !BMPCodec.sniff(Array("GIF89a".utf8)))
        #expect(BMPCodec.imageFormat == .bmp)
    }

    @Test("colour: V4/V5 sRGB and Windows colour space are sRGB; an embedded profile is returned as stored; else unspecified")
    func colors() throws {
        #expect(try BMPCodec.embeddedColor(in: BMPTestFiles.bytes("v5_srgb.bmp")) == .sRGB)
        #expect(try BMPCodec.embeddedColor(in: BMPTestFiles.bytes("bgra32_v4_bitfields.bmp")) == .sRGB)
        for name in ["pillow_rgb24.bmp", "rgba32_v5_bitfields.bmp", "os2_core_pal8.bmp", "rle8.bmp"] {
            #expect(try BMPCodec.embeddedColor(in: BMPTestFiles.bytes(name)) == .unspecified, "\(name)")
        }
        let data = try BMPTestFiles.bytes("v5_embedded_profile.bmp")
        guard case .iccProfile(let profile) = try BMPCodec.embeddedColor(in: data) else {
            Issue.record("no profile")
            return
        }
        // An ICC header: its size field is the profile's length, 'acsp' at byte 36.
        let declared = profile.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(declared == profile.count && Array(profile[36..<40]) == Array("acsp".utf8))
        let decoded = try BMPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.color == .iccProfile(profile))
        // Read independently: Python slices the file at the V5 header's offset and size.
        if Pillow.available {
            let script = """
            import struct, sys
            d = open(sys.argv[1], "rb").read()
            offset, size = struct.unpack_from("<II", d, 14 + 112)
            sys.stdout.write(d[14 + offset:14 + offset + size].hex())
            """
            let hex = try Pillow.run(["-c", script, BMPTestFiles.url("v5_embedded_profile.bmp").path])
            #expect(hex == profile.map { String(format: "%02x", $0) }.joined())
        }
    }

    @Test("an embedded profile pointing outside the file is unusable, and the image still decodes")
    func profileOutOfBounds() throws {
        var data = try BMPTestFiles.bytes("v5_embedded_profile.bmp")
        data.replaceSubrange(14 + 112..<14 + 116, with: BMPBuilder.le32(data.count))  // offset past the end
        guard case .unusableProfile(let reason) = try BMPCodec.embeddedColor(in: data) else {
            Issue.record("expected an unusable profile")
            return
        }
        #expect(reason.contains("outside"))
        #expect(try BMPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).pixels.width == 19)
        data.replaceSubrange(14 + 112..<14 + 120, with: BMPBuilder.le32(124) + BMPBuilder.le32(Int(UInt32.max)))
        guard case .unusableProfile = try BMPCodec.embeddedColor(in: data) else {
            Issue.record("expected an unusable profile for a huge size")
            return
        }
    }
}
