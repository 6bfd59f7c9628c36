import Foundation
import ImageCore
import Testing
@testable import JXLCodec

/// The committed files (Scripts/jxl_testimages.py) decoded by thumbd and by djxl, the same library's
/// own tool: the pixels must agree to within one level (both convert libjxl's floats to 8 bits),
/// and the header facts must be the file's.
@Suite("JPEG XL decoding")
struct JXLDecodeTests {
    /// djxl's --color_space for the files whose output colour space thumbd chooses differently from
    /// djxl's default (JXLOutputColor): an XYB image with an ICC profile, or with a linear transfer,
    /// comes out with sRGB's curve from thumbd; djxl is asked for the same.
    static let djxlColorSpace: [String: String] = [
        "icc_lossy_48x32.jxl": "RGB_D65_SRG_Rel_SRG",
        "linear_lossy_48x32.jxl": "RGB_D65_SRG_Rel_SRG",
    ]

    static let lossless: Set<String> = Set(JXLFiles.all.filter { $0.contains("lossless") || $0.hasPrefix("orientation") || $0.hasPrefix("animated") })

    @Test("every committed file is in TestImages/jxl")
    func filesPresent() {
        #expect(JXLFiles.all.count >= 24, "\(JXLFiles.folder.path) holds \(JXLFiles.all)")
    }

    @Test("each committed file decodes as djxl decodes it (exact or within 1; SSIM >= 0.97)", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")), arguments: JXLFiles.all)
    func matchesDjxl(_ name: String) throws {
        let data = try JXLFiles.bytes(name)
        let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let reference = try Tools.djxl(data, colorSpace: Self.djxlColorSpace[name])
        #expect(decoded.pixels.width == reference.pixels.width && decoded.pixels.height == reference.pixels.height,
                "\(name): \(decoded.pixels.width)x\(decoded.pixels.height), djxl \(reference.pixels.width)x\(reference.pixels.height)")
        guard decoded.pixels.width == reference.pixels.width, decoded.pixels.height == reference.pixels.height else { return }
        let difference = Compare.maxDifference(decoded.pixels, reference.pixels)
        let ssim = Compare.minimumSSIM(decoded.pixels, reference.pixels)
        print("JXL \(name): max difference \(difference), minimum RGB SSIM \(ssim)")
        #expect(difference <= 1, "\(name): max difference \(difference)")
        #expect(ssim >= 0.97, "\(name): SSIM \(ssim)")
        if Self.lossless.contains(name) && !name.contains("grey16") {
            #expect(difference == 0, "\(name) is lossless 8-bit: both decoders must agree bit for bit")
        }
        // The comparison can fail: the same pixels turned upside down are far off.
        #expect(Compare.minimumSSIM(decoded.pixels, Self.turned(reference.pixels)) < 0.97 || Self.isSymmetric(name), "\(name)")
        #expect(decoded.pixels.hasAlpha == reference.pixels.hasAlpha, "\(name): alpha")
    }

    @Test("header facts: displayed size, alpha, animation, orientation up, format jxl")
    func headerFacts() throws {
        let expected: [(String, Int, Int, Bool, Bool)] = [
            ("lossy_rgb_48x32.jxl", 48, 32, false, false),
            ("lossless_rgba_32x24.jxl", 32, 24, true, false),
            ("lossless_grey_alpha_32x24.jxl", 32, 24, true, false),
            ("animated_3frames_24x16.jxl", 24, 16, false, true),
            ("container_lossy_rgb_48x32.jxl", 48, 32, false, false),
            ("orientation_6.jxl", 24, 16, false, false),
        ]
        for (name, width, height, alpha, animated) in expected {
            let data = try JXLFiles.bytes(name)
            let info = try JXLCodec.readInfo(data, limits: DecodeLimits())
            #expect(info == ImageInfo(format: .jxl, width: width, height: height, hasAlpha: alpha, orientation: .up, isAnimated: animated), "\(name): \(info)")
            let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            #expect(decoded.info == info && decoded.scaleX == 1 && decoded.scaleY == 1 && decoded.samples == .rgba, "\(name)")
        }
        #expect(JXLCodec.imageFormat == .jxl)
        // Debian 12's libjxl; another 0.x would still be dotted three parts.
        #expect(JXLCodec.libraryVersion.split(separator: ".").count == 3 && JXLCodec.libraryVersion.hasPrefix("0."), "\(JXLCodec.libraryVersion)")
    }

    @Test("without alpha every alpha byte is 255 and hasAlpha is false; with it, the transparent corner is 0")
    func alpha() throws {
        for name in ["lossy_rgb_48x32.jxl", "lossless_grey_32x24.jxl", "jpeg_recompressed_48x32.jxl"] {
            let pixels = try JXLCodec.decode(try JXLFiles.bytes(name), limits: DecodeLimits(), scale: .fullSize).pixels
            #expect(!pixels.hasAlpha && stride(from: 3, to: pixels.pixels.count, by: 4).allSatisfy { pixels.pixels[$0] == 255 }, "\(name)")
        }
        for name in ["lossless_rgba_32x24.jxl", "lossy_rgba_32x24.jxl", "lossless_grey_alpha_32x24.jxl"] {
            let pixels = try JXLCodec.decode(try JXLFiles.bytes(name), limits: DecodeLimits(), scale: .fullSize).pixels
            #expect(pixels.hasAlpha, "\(name)")
            // The script makes the top-left quarter transparent and fades alpha from 255 to 55 rightwards.
            #expect(pixels.pixel(x: 1, y: 1).a == 0 && pixels.pixel(x: 0, y: 20).a >= 250 && pixels.pixel(x: 31, y: 20).a <= 60, "\(name)")
        }
        // Not premultiplied: a half-transparent pixel keeps its full colour (lossless: the script's numbers).
        let rgba = try JXLCodec.decode(try JXLFiles.bytes("lossless_rgba_32x24.jxl"), limits: DecodeLimits(), scale: .fullSize).pixels
        // At (20, 20) the script computes red 20 * 255 / 31 * 3 / 4 = 123 and alpha 255 - 20 * 200 / 31 = 126.
        let p = rgba.pixel(x: 20, y: 20)
        #expect(p.r == 123 && p.a == 126, "\(p)")
    }

    @Test("grey images come back as R = G = B")
    func grey() throws {
        for name in ["lossless_grey_32x24.jxl", "lossy_grey_32x24.jxl", "lossless_grey_alpha_32x24.jxl", "lossless_grey16_32x24.jxl"] {
            let pixels = try JXLCodec.decode(try JXLFiles.bytes(name), limits: DecodeLimits(), scale: .fullSize).pixels
            let samples = pixels.pixels
            var grey = true
            var levels = Set<UInt8>()
            for i in stride(from: 0, to: samples.count, by: 4) {
                grey = grey && samples[i] == samples[i + 1] && samples[i] == samples[i + 2]
                levels.insert(samples[i])
            }
            #expect(grey, "\(name)")
            #expect(levels.count > 10, "\(name) is not flat")
        }
    }

    @Test("an animation yields its first frame (red), flagged animated; djxl's first frame agrees", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")))
    func animationFirstFrame() throws {
        let decoded = try JXLCodec.decode(try JXLFiles.bytes("animated_3frames_24x16.jxl"), limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.info.isAnimated)
        // Frames 1, 2 and 3 are flat red, green and blue below a grey ramp in row 0.
        #expect(decoded.pixels.pixel(x: 5, y: 8) == (200, 30, 30, 255))
        #expect(decoded.pixels.pixel(x: 10, y: 0) == (100, 100, 100, 255))
    }

    @Test("the container form decodes to the same pixels as the bare codestream it wraps")
    func containerMatchesCodestream() throws {
        let container = try JXLFiles.bytes("container_lossy_rgb_48x32.jxl")
        let bare = try JXLFiles.bytes("lossy_rgb_48x32.jxl")
        #expect(Array(container.prefix(12)) == [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        #expect(Array(bare.prefix(2)) == [0xFF, 0x0A])
        #expect(JXLCodec.sniff(container) && JXLCodec.sniff(bare))
        let a = try JXLCodec.decode(container, limits: DecodeLimits(), scale: .fullSize)
        let b = try JXLCodec.decode(bare, limits: DecodeLimits(), scale: .fullSize)
        #expect(a.pixels == b.pixels)
    }

    @Test("a reduced-size hint is ignored: libjxl 0.7 decodes at full size")
    func scaleIgnored() throws {
        let data = try JXLFiles.bytes("lossy_rgb_48x32.jxl")
        let full = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let hinted = try JXLCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.125))
        #expect(hinted.pixels == full.pixels && hinted.scaleX == 1 && hinted.scaleY == 1)
    }

    @Test("other formats, and nothing at all, are refused by the signature check")
    func notJXL() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 40)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 40)
        let isoMedia: [UInt8] = [0, 0, 0, 0x18] + Array("ftypavif".utf8) + [UInt8](repeating: 0, count: 12)
        for (label, data) in [("PNG", png), ("JPEG", jpeg), ("AVIF", isoMedia), ("text", Array("hello, world".utf8))] {
            #expect(!JXLCodec.sniff(data), "\(label)")
            for entryPoint in Self.entryPoints {
                let error = #expect(throws: ImageError.self, "\(label) \(entryPoint)") { try Self.call(entryPoint, data) }
                #expect(error?.code == .unsupportedFormat, "\(label) \(entryPoint): \(String(describing: error))")
            }
        }
        for entryPoint in Self.entryPoints {
            let error = #expect(throws: ImageError.self) { try Self.call(entryPoint, []) }
            #expect(error?.code == .corruptImage)
            // A prefix of the signature is a file cut short.
            for prefix in [[0xFF], [0, 0, 0, 0x0C, 0x4A]] as [[UInt8]] {
                let cut = #expect(throws: ImageError.self) { try Self.call(entryPoint, prefix) }
                #expect(cut?.code == .truncatedImage, "\(prefix): \(String(describing: cut))")
            }
        }
    }

    static let entryPoints = ["readInfo", "decode", "embeddedColor"]

    /// One of the codec's three reading entry points on `data`.
    static func call(_ entryPoint: String, _ data: [UInt8]) throws(ImageError) {
        switch entryPoint {
        case "readInfo": _ = try JXLCodec.readInfo(data, limits: DecodeLimits())
        case "decode": _ = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        default: _ = try JXLCodec.embeddedColor(in: data)
        }
    }

    /// The image turned half round (for the checks that must be able to fail).
    static func turned(_ image: PixelBuffer) -> PixelBuffer {
        var out = image
        let count = image.width * image.height
        for i in 0..<count {
            for c in 0..<4 { out.pixels[i * 4 + c] = image.pixels[(count - 1 - i) * 4 + c] }
        }
        return out
    }

    /// Files whose picture looks alike turned half round (flat animation frames).
    static func isSymmetric(_ name: String) -> Bool { name.hasPrefix("animated") }
}
