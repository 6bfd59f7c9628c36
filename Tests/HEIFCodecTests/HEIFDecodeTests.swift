import Foundation
import HEIFCodec
import ImageCodecs
import ImageCore
import ImageOps
import ImageQuality
import Testing
import TestSupport

/// HEIC made by heif-enc and libheif from known pixels, decoded and compared with them.
@Suite("HEIC decoding", .requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEIFDecodeTests {
    static let photo = PhonePhoto.synthetic(width: 96, height: 64, seed: 19)

    /// Within HEVC's loss at quality 90: SSIM of the RGB planes (1 is identical). A decode with the
    /// wrong matrix, wrong channel order or wrong orientation falls far below.
    static func expectClose(_ decoded: PixelBuffer, _ source: PixelBuffer, ssim minimum: Double = 0.9, _ label: String) {
        #expect(decoded.width == source.width && decoded.height == source.height, "\(label): \(decoded.width)x\(decoded.height)")
        guard decoded.width == source.width, decoded.height == source.height else { return }
        let ssim = minimumSSIM(decoded, source)
        #expect(ssim >= minimum, "\(label): SSIM \(ssim)")
    }

    /// The worst of the R, G and B planes' SSIM: a swapped channel shows, which luma alone may hide.
    static func minimumSSIM(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        let rgb = SSIM.compareRGB(a, b)
        return min(rgb.r, rgb.g, rgb.b)
    }

    @Test("an opaque HEIC decodes to its source's pixels, opaque, upright, as heic")
    func opaque() throws {
        let data = try HEIFEnc.encode(Self.photo)
        #expect(SniffedFormat.sniff(data) == .supported(.heic))
        let info = try HEIFCodec.readInfo(data, limits: DecodeLimits())
        #expect(info == ImageInfo(format: .heic, width: 96, height: 64, hasAlpha: false))
        let decoded = try HEIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        Self.expectClose(decoded.pixels, Self.photo, "opaque")
        #expect(!decoded.pixels.hasAlpha)
        #expect(stride(from: 3, to: decoded.pixels.pixels.count, by: 4).allSatisfy { decoded.pixels.pixels[$0] == 255 }, "alpha not all 255")
        // A swapped channel order (BGR) or a flipped image is far off: the comparison can fail.
        var swapped = Self.photo
        for i in stride(from: 0, to: swapped.pixels.count, by: 4) { swapped.pixels.swapAt(i, i + 2) }
        print("HEIC q90 96x64: minimum RGB SSIM \(Self.minimumSSIM(decoded.pixels, Self.photo)), swapped \(Self.minimumSSIM(decoded.pixels, swapped))")
        #expect(Self.minimumSSIM(decoded.pixels, swapped) < 0.9)
        #expect(Self.minimumSSIM(decoded.pixels, Self.photo.oriented(.down)) < 0.9)
    }

    @Test("alpha survives: opaque, ramp and transparent areas")
    func alpha() throws {
        var image = Self.photo
        image.hasAlpha = true
        for y in 0..<image.height {
            for x in 0..<image.width { image.pixels[(y * image.width + x) * 4 + 3] = x < 32 ? 255 : x >= 80 ? 0 : UInt8((80 - x) * 255 / 48) }
        }
        let data = try HEIFEnc.encode(image)
        #expect(try HEIFCodec.readInfo(data, limits: DecodeLimits()).hasAlpha)
        let decoded = try HEIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.hasAlpha)
        let alphaError = stride(from: 3, to: image.pixels.count, by: 4).map { abs(Int(decoded.pixels.pixels[$0]) - Int(image.pixels[$0])) }
        #expect(Double(alphaError.reduce(0, +)) / Double(alphaError.count) < 3, "mean alpha error")
        #expect(decoded.pixels.pixel(x: 2, y: 30).a >= 250 && decoded.pixels.pixel(x: 92, y: 30).a <= 5)
    }

    @Test("an odd-sized HEIC (heif-enc writes a 1x1 grid that crops the even tile) decodes to its size")
    func oddSizedGrid() throws {
        let odd = PhonePhoto.synthetic(width: 63, height: 31, seed: 5)
        let data = try HEIFEnc.encode(odd)
        #expect(HEIFBoxes.find(data, "grid") != nil, "heif-enc wrote no grid item")
        #expect(try HEIFCodec.readInfo(data, limits: DecodeLimits()).width == 63)
        Self.expectClose(try HEIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).pixels, odd, "63x31")
    }

    @Test("irot/imir are applied once, by libheif: every orientation comes back upright, reported as up", arguments: Orientation.allCases)
    func orientation(_ orientation: Orientation) throws {
        let upright = Self.photo
        let stored = upright.oriented(orientation.inverse)
        let data = try LibHEIFWriter.encode(stored, orientation: orientation)
        if orientation != .up { #expect(HEIFBoxes.find(data, "irot") != nil || HEIFBoxes.find(data, "imir") != nil, "no transform box") }
        let info = try HEIFCodec.readInfo(data, limits: DecodeLimits())
        #expect(info.orientation == .up && info.width == 96 && info.height == 64, "\(info)")
        let decoded = try ImageCodecs.decode(data)
        Self.expectClose(decoded.pixels, upright, "orientation \(orientation.rawValue)")
    }

    @Test("an Exif Orientation tag without irot is ignored, as HEIF requires (heif-enc copies a JPEG's EXIF, writes no irot)")
    func exifOrientationIgnored() throws {
        let jpeg = try PhonePhoto.jpeg(upright: Self.photo, orientation: .right)
        let data = try HEIFEnc.encode(file: jpeg, extension: "jpg")
        #expect(HEIFBoxes.find(data, "Exif") != nil && HEIFBoxes.find(data, "irot") == nil)
        let info = try HEIFCodec.readInfo(data, limits: DecodeLimits())
        // Stored 64x96 (the JPEG's pixels, sideways); shown as stored.
        #expect(info.width == 64 && info.height == 96 && info.orientation == .up, "\(info)")
    }

    @Test("the ICC profile comes out as stored, and ImageCodecs converts through it")
    func iccProfile() throws {
        let profile = Array("not really an ICC profile, but libheif stores what it is given".utf8) + (0..<200).map { UInt8($0) }
        let tagged = try LibHEIFWriter.encode(Self.photo, icc: profile)
        #expect(try HEIFCodec.embeddedColor(in: tagged) == .iccProfile(profile))
        #expect(try HEIFCodec.decode(tagged, limits: DecodeLimits(), scale: .fullSize).color == .iccProfile(profile))
        // Made by heif-enc without a profile: nclx only, which is not sRGB's 1/13 here, so unspecified.
        #expect(try HEIFCodec.embeddedColor(in: try HEIFEnc.encode(Self.photo)) != .iccProfile([]))

        let adobe = "/usr/share/color/icc/ghostscript/a98.icc"
        guard let real = FileManager.default.contents(atPath: adobe) else {
            return try Requirement.unmet("\(adobe) is missing (libgs-common): the HEIC profile conversion check cannot run")
        }
        let adobeRGB = try LibHEIFWriter.encode(Self.photo, icc: [UInt8](real))
        #expect(try ImageCodecs.needsColorConversion(adobeRGB))
        let (image, outcome) = try ImageCodecs.decodeToSRGB(adobeRGB)
        guard case .converted = outcome else {
            Issue.record("an Adobe RGB HEIC was not converted: \(outcome)")
            return
        }
        // Adobe RGB's samples read as Adobe RGB are more saturated than the same numbers read as sRGB.
        #expect(SSIM.compare(image.pixels, Self.photo) < 0.999)
    }
}
