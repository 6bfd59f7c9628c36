import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// The one door to every codec: the format comes from the bytes, every supported format is read
/// through it with a header that agrees with its pixels, and anything else is refused with a
/// stable code that names what the file is.
struct FormatDispatchTests {
    static func file(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: TestPaths.testImages.appendingPathComponent(path)))
    }

    static let opaque: PixelBuffer = {
        var pixels: [UInt8] = []
        for y in 0..<32 {
            for x in 0..<48 { pixels += [UInt8(x * 5), UInt8(y * 7), 90, 255] }
        }
        return PixelBuffer(width: 48, height: 32, hasAlpha: false, pixels: pixels)
    }()

    @Test("the format comes from the bytes, and the header's size is the decoded size", arguments: [
        ("png/gradient-rgba8.png", ImageFormat.png), ("png/interlaced-rgb.png", .png),
        ("webp/lossy_rgb_48x32.webp", .webp), ("webp/lossless_rgba_32x24.webp", .webp),
        ("heic/opaque_24x16.heic", .heic),
    ])
    func sniffedFromBytes(_ path: String, _ expected: ImageFormat) throws {
        let bytes = try Self.file(path)
        #expect(try ImageCodecs.format(of: bytes) == expected)
        let info = try ImageCodecs.readInfo(bytes)
        let decoded = try ImageCodecs.decode(bytes)
        #expect(info.format == expected)
        #expect(decoded.pixels.width == info.width && decoded.pixels.height == info.height, "\(path): \(info)")
    }

    @Test("what the door writes it reads back as the same format and size", arguments: [
        EncodeSettings.jpeg(quality: 85), .png, .webp(quality: 80), .avif(quality: 60), .jxl(quality: 82),
    ])
    func encodedRoundTrip(_ settings: EncodeSettings) throws {
        let bytes = try ImageCodecs.encode(Self.opaque, settings)
        #expect(try ImageCodecs.format(of: bytes) == settings.format)
        let decoded = try ImageCodecs.decode(bytes)
        #expect(decoded.pixels.width == 48 && decoded.pixels.height == 32)
    }

    @Test("other formats are refused as unsupported, naming what they are", arguments: [
        ("\u{0}\u{0}\u{1}\u{0}", "ICO"),
        ("%PDF-1.7 not an image at all", "not a JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP or JPEG XL"),
    ])
    func refusedFormats(_ signature: String, _ named: String) {
        // Latin-1 bytes of the signature, then zeros: the sniffer decides on the first bytes.
        let bytes = signature.unicodeScalars.map { UInt8($0.value) } + [UInt8](repeating: 0, count: 32)
        let attempts: [() throws -> Void] = [{ _ = try ImageCodecs.readInfo(bytes) }, { _ = try ImageCodecs.decode(bytes) }]
        for attempt in attempts {
            do {
                try attempt()
                Issue.record("\(named) was accepted")
            } catch let error as ImageError {
                #expect(error.code == .unsupportedFormat)
                #expect(error.message.contains(named), "\(error)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("an empty file is corrupt, not unsupported")
    func emptyFile() throws {
        #expect(throws: ImageError.corrupt("the file is empty")) { try ImageCodecs.format(of: []) }
    }

    @Test("the size limit is checked from the header, before any pixel")
    func limitFromHeader() throws {
        let bytes = try Self.file("webp/lossy_rgb_48x32.webp")
        do {
            _ = try ImageCodecs.decode(bytes, limits: DecodeLimits(maxPixels: 48 * 32 - 1))
            Issue.record("a 48x32 image passed a limit of one pixel fewer")
        } catch {
            #expect(error.code == .pixelLimitExceeded, "\(error)")
        }
        #expect(try ImageCodecs.decode(bytes, limits: DecodeLimits(maxPixels: 48 * 32)).pixels.width == 48)
    }
}
