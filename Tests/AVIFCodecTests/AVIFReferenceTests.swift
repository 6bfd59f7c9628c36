@testable import AVIFCodec
import ImageCore
import Testing
import TestSupport

/// Pillow, with its own libavif (1.x) and AV1 codecs, as the independent reader and writer.
@Suite("AVIF against Pillow", .requires(PillowAVIF.python != nil, Comment(rawValue: PillowAVIF.missing)))
struct AVIFReferenceTests {
    static func decode(_ data: [UInt8]) throws -> DecodedImage {
        try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
    }

    @Test("Pillow decodes our files to what we decode (over 45 dB)", arguments: ["opaque", "alpha"])
    func ourFilesInPillow(kind: String) throws {
        let source = Photo.make(width: 200, height: 200, seed: 61, alpha: kind == "alpha")
        let avif = try AVIFCodec.encode(source, quality: 82, speed: 8)
        let ours = try Self.decode(avif)
        let pillow = try PillowAVIF.decode(avif)
        #expect(pillow.width == 200 && pillow.height == 200)
        let channels = kind == "alpha" ? [0, 1, 2, 3] : [0, 1, 2]
        let agreement = Quality.psnr(ours.pixels.pixels, pillow.rgba, channels: channels)
        #expect(agreement > 45, "ours vs Pillow: \(agreement) dB")
        // And both are close to the source.
        #expect(Quality.psnr(source.pixels, pillow.rgba) { source.pixels[$0 * 4 + 3] >= 64 } > 30)
    }

    @Test("we decode Pillow's files to what Pillow decodes (over 45 dB)", arguments: ["opaque", "alpha"])
    func pillowFilesInOurs(kind: String) throws {
        let source = Photo.make(width: 160, height: 120, seed: 62, alpha: kind == "alpha")
        let avif = try PillowAVIF.encode(source, quality: 82)
        #expect(AVIFCodec.sniff(avif))
        let ours = try Self.decode(avif)
        let pillow = try PillowAVIF.decode(avif)
        #expect(ours.pixels.width == pillow.width && ours.pixels.height == pillow.height)
        #expect(ours.info.hasAlpha == (kind == "alpha"))
        let channels = kind == "alpha" ? [0, 1, 2, 3] : [0, 1, 2]
        let agreement = Quality.psnr(ours.pixels.pixels, pillow.rgba, channels: channels)
        #expect(agreement > 45, "ours vs Pillow: \(agreement) dB")
    }

    @Test("orientation written by Pillow (EXIF orientation as irot/imir) reads as that orientation", arguments: Array(1...8))
    func pillowOrientation(exif: Int) throws {
        let avif = try PillowAVIF.encode(Photo.make(width: 40, height: 24, seed: 63), quality: 82, orientation: exif)
        let info = try AVIFCodec.readInfo(avif, limits: DecodeLimits())
        #expect(Int(info.orientation.rawValue) == exif)
        #expect(info.width == 40 && info.height == 24)
    }

    @Test("orientation we write reads in Pillow as that EXIF orientation", arguments: Orientation.allCases)
    func ourOrientationInPillow(orientation: Orientation) throws {
        let avif = try AVIFEncoder.encode(Photo.make(width: 40, height: 24, seed: 64), quality: 82, speed: 10, orientation: orientation)
        let pillow = try PillowAVIF.decode(avif)
        #expect(pillow.exifOrientation == Int(orientation.rawValue))
    }
}
