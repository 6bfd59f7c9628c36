import CJXL
import Foundation
import ImageCore
import ImageQuality
import Testing
@testable import JXLCodec

/// What the codec says of the colours always describes the samples it returns (libjxl's data
/// target), and equals the ICC profile djxl writes for its own decode of the same samples.
@Suite("JPEG XL colour")
struct JXLColorTests {
    @Test("untagged (sRGB) files, grey ones too, say .sRGB", arguments: [
        "lossy_rgb_48x32.jxl", "lossless_rgb_48x32.jxl", "lossless_rgba_32x24.jxl", "lossy_grey_32x24.jxl",
        "lossless_grey_32x24.jxl", "container_lossy_rgb_48x32.jxl", "jpeg_recompressed_48x32.jxl", "animated_3frames_24x16.jxl",
    ])
    func sRGB(_ name: String) throws {
        let data = try JXLFiles.bytes(name)
        #expect(try JXLCodec.embeddedColor(in: data) == .sRGB, "\(name)")
        #expect(try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).color == .sRGB, "\(name)")
    }

    /// Display P3 as a structured encoding: lossless samples are P3's, and so are lossy ones (libjxl
    /// renders XYB into the file's own space). Reported as the ICC profile libjxl makes for P3,
    /// which is what djxl writes beside its PNG.
    @Test("Display P3 files give libjxl's P3 profile, the one djxl reports for its pixels", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")), arguments: ["p3_lossless_48x32.jxl", "p3_lossy_48x32.jxl"])
    func displayP3(_ name: String) throws {
        let data = try JXLFiles.bytes(name)
        let color = try JXLCodec.embeddedColor(in: data)
        let reference = try Tools.djxl(data)
        guard case .iccProfile(let profile) = color else {
            Issue.record("\(name): \(color)")
            return
        }
        #expect(profile == reference.icc, "\(name): \(profile.count) bytes, djxl's \(reference.icc.count)")
        #expect(Array(profile[36..<40]) == Array("acsp".utf8) && Array(profile[16..<20]) == Array("RGB ".utf8))
        #expect(try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).color == color)
        // The samples are the script's numbers, read as P3: libjxl does not convert them to sRGB
        // (the sRGB-tagged twin holds the same numbers; lossy, each file has its own losses).
        let sRGBTwin = name.replacingOccurrences(of: "p3_", with: "").replacingOccurrences(of: "_48x32", with: "_rgb_48x32")
        let untagged = try JXLCodec.decode(try JXLFiles.bytes(sRGBTwin), limits: DecodeLimits(), scale: .fullSize)
        let p3 = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        if name.contains("lossless") {
            #expect(untagged.pixels == p3.pixels)
        } else {
            #expect(SSIM.compare(untagged.pixels, p3.pixels) >= 0.97)
        }
    }

    /// The script's own ICC profile (Adobe RGB primaries, a tabulated curve), stored as ICC.
    /// Lossless: the samples are in it, and the profile comes back byte for byte as stored (djxl's
    /// --orig_icc_out would say the same). Lossy (XYB): libjxl has no CMS to render into it and
    /// would render linear sRGB; thumbd asks for sRGB and says so.
    @Test("a stored ICC profile comes back as stored for lossless; a lossy one is rendered to sRGB and said to be", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")))
    func storedProfile() throws {
        let lossless = try JXLFiles.bytes("icc_lossless_48x32.jxl")
        guard case .iccProfile(let profile) = try JXLCodec.embeddedColor(in: lossless) else {
            Issue.record("icc_lossless: no profile")
            return
        }
        let original = try Tools.djxl(lossless)
        #expect(profile == original.icc)
        #expect(String(decoding: profile, as: UTF8.self).contains("thumbd synthetic Adobe-RGB-like"), "not the script's profile")
        #expect(try JXLCodec.decode(lossless, limits: DecodeLimits(), scale: .fullSize).color == .iccProfile(profile))

        let lossy = try JXLFiles.bytes("icc_lossy_48x32.jxl")
        #expect(try JXLCodec.embeddedColor(in: lossy) == .sRGB)
        let decoded = try JXLCodec.decode(lossy, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.color == .sRGB)
        // djxl's default for this file is linear sRGB (its ICC says so in a profile of its own);
        // asked for sRGB, it agrees with thumbd (JXLDecodeTests compares the pixels).
        let djxlDefault = try Tools.djxl(lossy)
        #expect(Compare.maxDifference(djxlDefault.pixels, decoded.pixels) > 10, "libjxl's default would have been linear")
    }

    @Test("a linear-light lossy file is rendered with sRGB's curve (8-bit linear loses the shadows)", .requires(Tools.available, Comment(rawValue: Tools.missing ?? "")))
    func linearLossy() throws {
        let data = try JXLFiles.bytes("linear_lossy_48x32.jxl")
        #expect(try JXLCodec.embeddedColor(in: data) == .sRGB)
        let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.color == .sRGB)
        // The script's numbers were read as linear light; sRGB-encoded, they come out brighter.
        let linear = try Tools.djxl(data)
        var brighter = 0
        for i in stride(from: 0, to: decoded.pixels.pixels.count, by: 4) where decoded.pixels.pixels[i + 1] > linear.pixels.pixels[i + 1] { brighter += 1 }
        #expect(brighter > decoded.pixels.width * decoded.pixels.height * 3 / 4)
    }

    @Test("embeddedColor reads headers only and says what decode says, for every file", arguments: JXLFiles.all)
    func embeddedMatchesDecode(_ name: String) throws {
        let data = try JXLFiles.bytes(name)
        #expect(try JXLCodec.embeddedColor(in: data) == JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).color, "\(name)")
        // Headers only: a file cut right after its colour encoding still answers (the frames are gone).
        if name == "lossless_rgb_48x32.jxl" {
            #expect(try JXLCodec.embeddedColor(in: Array(data.prefix(40))) == .sRGB)
        }
    }

    @Test("sRGB is recognised from the structured encoding: D65, sRGB primaries (RGB only) and curve")
    func structuredSRGB() {
        var encoding = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&encoding, JXL_FALSE)
        #expect(JXLOutputColor.isSRGB(encoding))
        JxlColorEncodingSetToSRGB(&encoding, JXL_TRUE)
        #expect(JXLOutputColor.isSRGB(encoding))
        JxlColorEncodingSetToSRGB(&encoding, JXL_FALSE)
        encoding.primaries = JXL_PRIMARIES_P3
        #expect(!JXLOutputColor.isSRGB(encoding))
        JxlColorEncodingSetToLinearSRGB(&encoding, JXL_FALSE)
        #expect(!JXLOutputColor.isSRGB(encoding))
        JxlColorEncodingSetToSRGB(&encoding, JXL_FALSE)
        encoding.white_point = JXL_WHITE_POINT_DCI
        #expect(!JXLOutputColor.isSRGB(encoding))
    }
}
