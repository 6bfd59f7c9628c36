import ImageCore
import TestSupport
import Testing
import WebPCodec

@Suite("WebP headers and limits")
struct WebPHeaderTests {
    @Test("readInfo of a simple lossy file")
    func simpleLossy() throws {
        let info = try WebPCodec.readInfo(try WebPFiles.testImage("lossy_rgb_48x32.webp"))
        #expect(info == ImageInfo(format: .webp, width: 48, height: 32, hasAlpha: false, orientation: .up, isAnimated: false))
    }

    @Test("readInfo of lossless and lossy files with alpha")
    func alphaFlags() throws {
        let lossless = try WebPCodec.readInfo(try WebPFiles.testImage("lossless_rgba_32x24.webp"))
        #expect(lossless.width == 32 && lossless.height == 24 && lossless.hasAlpha)
        let lossy = try WebPCodec.readInfo(try WebPFiles.testImage("lossy_alpha_40x30.webp"))
        #expect(lossy.width == 40 && lossy.height == 30 && lossy.hasAlpha)
        let decoded = try WebPCodec.decode(try WebPFiles.testImage("lossy_alpha_40x30.webp"), limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.hasAlpha)
        #expect(decoded.pixels.pixel(x: 0, y: 0).a == 0)  // the generated pattern's transparent corner
        #expect(decoded.pixels.pixel(x: 39, y: 29).a == 255)
    }

    @Test("EXIF orientation from a raw TIFF EXIF chunk")
    func exifRaw() throws {
        let data = try WebPFiles.testImage("exif_orientation_8.webp")
        #expect(try WebPCodec.readInfo(data).orientation == .left)
        let image = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(image.info.orientation == .left)
        #expect(image.pixels.width == 24 && image.pixels.height == 16)  // stored orientation
    }

    @Test("EXIF orientation from a chunk prefixed with Exif\\0\\0")
    func exifPrefixed() throws {
        let data = try WebPFiles.testImage("exif_orientation_3_prefixed.webp")
        #expect(try WebPCodec.readInfo(data).orientation == .down)
    }

    @Test("EXIF orientation 6 in the corpus file", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func exifCorpus() throws {
        let data = try WebPFiles.corpus("exif/pillow_hopper_orientation_6.webp")
        let info = try WebPCodec.readInfo(data)
        #expect(info.orientation == .right)
        #expect(info.width == 128 && info.height == 128)
        #expect(try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).info.orientation == .right)
    }

    @Test("files without EXIF read as upright")
    func noExif() throws {
        for name in ["lossy_rgb_48x32.webp", "lossless_rgba_32x24.webp", "lossy_alpha_40x30.webp"] {
            #expect(try WebPCodec.readInfo(try WebPFiles.testImage(name)).orientation == .up, "\(name)")
        }
    }

    @Test("animated files: canvas size and the first frame", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)),
          arguments: WebPFiles.manifestFiles(expected: "decode").filter { $0.hasPrefix("animated/") })
    func animated(file: String) throws {
        let row = try WebPFiles.manifestRow(file)
        let data = try WebPFiles.corpus(file)
        let info = try WebPCodec.readInfo(data)
        #expect(info.isAnimated)
        #expect(info.width == Int(row["width"] ?? "") && info.height == Int(row["height"] ?? ""))
        // Scaling is not applied to animations: the first frame comes back at canvas size.
        let image = try WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.5))
        #expect(image.info.isAnimated)
        #expect(image.pixels.width == info.width && image.pixels.height == info.height)
        let reference = try #require(WebPReference.all.first { $0.root == "corpora" && $0.file == file })
        #expect(reference.kind == "animated")
        #expect(reference.width == info.width && reference.height == info.height)
    }

    @Test("the first frame of an animation matches Pillow's first frame", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func animatedFirstFrameExact() throws {
        // Three lossless frames: the composited first frame must be exact.
        let reference = try #require(WebPReference.all.first { $0.file == "animated/iw_random_lossless.webp" })
        let image = try WebPCodec.decode(try reference.bytes(), limits: DecodeLimits(), scale: .fullSize)
        #expect(SHA256.hex(reference.comparable(image.pixels)) == reference.sha256)
    }

    // MARK: Limits

    /// lossless_rgba_32x24.webp with its VP8L header rewritten to declare 16384x16384.
    static func hugeLossless() throws -> [UInt8] {
        var data = try WebPFiles.testImage("lossless_rgba_32x24.webp")
        #expect(Array(data[12..<16]) == Array("VP8L".utf8) && data[20] == 0x2F)
        // After the 0x2F signature: 14 bits width-1, 14 bits height-1, alpha, 3 bits version.
        var bits = UInt32(data[21]) | UInt32(data[22]) << 8 | UInt32(data[23]) << 16 | UInt32(data[24]) << 24
        bits |= 0x0FFF_FFFF  // both sizes 16383 + 1
        for i in 0..<4 { data[21 + i] = UInt8(truncatingIfNeeded: bits >> (8 * UInt32(i))) }
        return data
    }

    @Test("a lossless header declaring 16384x16384 gives pixel_limit_exceeded")
    func hugeLosslessHeader() throws {
        let data = try Self.hugeLossless()
        let info = try WebPCodec.readInfo(data)
        #expect(info.width == 16384 && info.height == 16384)
        let error = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }
        #expect(error?.code == .pixelLimitExceeded)
        // Scaling does not lift the limit on stored pixels.
        let scaled = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.01))
        }
        #expect(scaled?.code == .pixelLimitExceeded)
    }

    @Test("a lossy header declaring 16383x16383 gives pixel_limit_exceeded")
    func hugeLossyHeader() throws {
        var data = try WebPFiles.testImage("lossy_rgb_48x32.webp")
        // "VP8 " chunk payload: 3-byte frame tag, 9D 01 2A, then 14-bit width and height (+2 scale bits).
        try #require(Array(data[23..<26]) == [0x9D, 0x01, 0x2A])
        data[26] = 0xFF; data[27] = 0x3F; data[28] = 0xFF; data[29] = 0x3F
        let info = try WebPCodec.readInfo(data)
        #expect(info.width == 16383 && info.height == 16383)
        let error = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test("an animation canvas declaring 60000x60000 gives pixel_limit_exceeded", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func hugeCanvas() throws {
        var data = try WebPFiles.corpus("animated/imagers_anim.webp")
        try #require(Array(data[12..<16]) == Array("VP8X".utf8))
        let side = 60000 - 1
        for (offset, value) in [(24, side), (27, side)] {
            data[offset] = UInt8(value & 0xFF); data[offset + 1] = UInt8(value >> 8 & 0xFF); data[offset + 2] = UInt8(value >> 16)
        }
        let error = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }
        #expect(error?.code == .pixelLimitExceeded)
    }

    @Test("maxPixels and maxDecodeBytes are enforced from the header")
    func customLimits() throws {
        let data = try WebPFiles.testImage("lossy_rgb_48x32.webp")
        let pixels = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(maxPixels: 48 * 32 - 1), scale: .fullSize)
        }
        #expect(pixels?.code == .pixelLimitExceeded)
        let bytes = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 48 * 32 * 4 - 1), scale: .fullSize)
        }
        #expect(bytes?.code == .pixelLimitExceeded)
        // Exactly enough is enough (lossy without alpha needs only the output buffer).
        _ = try WebPCodec.decode(data, limits: DecodeLimits(maxPixels: 48 * 32, maxDecodeBytes: 48 * 32 * 4), scale: .fullSize)
        // A scaled decode needs only the smaller output.
        let half = try WebPCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 24 * 16 * 4), scale: DecodeScaleHint(minimumScale: 0.5))
        #expect(half.pixels.width == 24 && half.pixels.height == 16)
    }

    @Test("the big image's decode-memory limit refuses before decoding", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func bigImageRefusedFast() throws {
        let data = try WebPFiles.corpus("lossy/bryce.webp")
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(maxDecodeBytes: 64 << 20), scale: .fullSize)
        }
        #expect(error?.code == .pixelLimitExceeded)
        #expect(clock.now - start < .milliseconds(100), "the refusal took \(clock.now - start): it decoded first")
    }

    @Test("data that is not a RIFF WebP is corrupt_image")
    func notRIFF() throws {
        var bare = try WebPFiles.testImage("lossless_rgba_32x24.webp")
        bare.removeFirst(20)  // a bare VP8L bitstream, which libwebp would accept
        #expect((try? WebPCodec.readInfo(bare)) == nil)
        let error = #expect(throws: ImageError.self) { _ = try WebPCodec.decode(bare, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .corruptImage)
        let empty = #expect(throws: ImageError.self) { _ = try WebPCodec.decode([], limits: DecodeLimits(), scale: .fullSize) }
        #expect(empty?.code == .corruptImage)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        #expect((try? WebPCodec.readInfo(png)) == nil)
    }

    @Test("a chunk that overruns the RIFF container is corrupt_image")
    func chunkOverrun() throws {
        var data = try WebPFiles.testImage("lossy_rgb_48x32.webp")
        let vp8Size = Int(data[16]) | Int(data[17]) << 8
        let bigger = RIFFChunks.le32(vp8Size + 100)
        data.replaceSubrange(16..<20, with: bigger)
        let error = #expect(throws: ImageError.self) { _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .corruptImage)
    }
}

@Suite("WebP container checks")
struct WebPContainerTests {
    @Test("a container whose first chunk is not VP8, VP8L or VP8X is corrupt_image")
    func wrongFirstChunk() throws {
        var data = try WebPFiles.testImage("lossy_alpha_40x30.webp")
        // Swap the VP8X chunk's name for one libwebp does not know.
        data.replaceSubrange(12..<16, with: Array("JUNK".utf8))
        let error = #expect(throws: ImageError.self) { _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .corruptImage)
    }

    @Test("bytes after the RIFF container are ignored")
    func trailingBytes() throws {
        let data = try WebPFiles.testImage("lossless_rgba_32x24.webp")
        let plain = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let padded = try WebPCodec.decode(data + [UInt8](repeating: 0xAB, count: 37), limits: DecodeLimits(), scale: .fullSize)
        #expect(plain.pixels == padded.pixels)
    }

    @Test("a RIFF size too small to hold a chunk is corrupt_image")
    func tinyRIFFSize() throws {
        var data = try WebPFiles.testImage("lossy_rgb_48x32.webp")
        data.replaceSubrange(4..<8, with: RIFFChunks.le32(4))
        let error = #expect(throws: ImageError.self) { _ = try WebPCodec.readInfo(data) }
        #expect(error?.code == .corruptImage)
    }
}
