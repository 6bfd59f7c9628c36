import ColorManagement
import Foundation
import ImageCore
import ImageQuality
import Testing
import TIFFCodec

/// ICC profiles, and CMYK through thumbd's colour path (ColorManagement).
@Suite("TIFF colour")
struct TIFFColorTests {
    @Test("an ICC profile is handed over as stored; no profile is unspecified")
    func iccProfile() throws {
        let data = try TIFFTestFiles.bytes("rgb8-icc.tif")
        guard case .iccProfile(let profile) = try TIFFCodec.embeddedColor(in: data) else {
            Issue.record("rgb8-icc.tif: no profile")
            return
        }
        // An ICC header: its own size first, "acsp" at 36, RGB data colour space at 16.
        #expect(profile.count >= 128 && Array(profile[36..<40]) == Array("acsp".utf8) && Array(profile[16..<20]) == Array("RGB ".utf8))
        #expect(profile.prefix(4).reduce(0) { $0 << 8 | Int($1) } == profile.count)
        #expect(try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize).color == .iccProfile(profile))
        #expect(try TIFFCodec.embeddedColor(in: TIFFTestFiles.bytes("rgb8-lzw.tif")) == .unspecified)
        #expect(try TIFFCodec.embeddedColor(in: TIFFTestFiles.bytes("cmyk8.tif")) == .unspecified)
    }

    @Test("CMYK without a profile: CMYK samples, converted naively by ColorManagement")
    func cmykWithoutProfile() throws {
        var decoded = try TIFFCodec.decode(try TIFFTestFiles.bytes("cmyk8.tif"), limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.samples == .cmyk(inverted: false) && decoded.color == .unspecified)
        var expected = decoded.pixels
        expected.convertNaiveCMYKToRGBA(inverted: false)
        let outcome = ColorManagement.convertToSRGB(&decoded)
        let same = decoded.pixels == expected
        #expect(outcome == .sRGB && decoded.samples == .rgba && same)
    }

    /// Ghostscript's CMYK profile (a system file, not committed) embedded at test time in cmyk8.tif's
    /// pixels: thumbd's conversion through it must look like Pillow's through Little CMS.
    @Test("CMYK with a profile is converted through that profile",
          .requires(PillowDecode.available && TIFFTestFiles.systemCMYKProfile != nil, "needs Pillow and Ghostscript's CMYK ICC profile"))
    func cmykWithProfile() throws {
        let profilePath = try #require(TIFFTestFiles.systemCMYKProfile)
        let folder = try TIFFTestFiles.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cmyk-icc.tif")
        let made = try Python.run([TIFFTestFiles.script, "with-profile", TIFFTestFiles.url("cmyk8.tif").path, file.path, profilePath])
        try #require(made.status == 0, "\(made.stderr)")

        var decoded = try TIFFCodec.decode([UInt8](try Data(contentsOf: file)), limits: DecodeLimits(), scale: .fullSize)
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: profilePath)))
        #expect(decoded.color == .iccProfile(profile) && decoded.samples == .cmyk(inverted: false))
        let sameInks = decoded.pixels.pixels == (try PillowDecode.decode(file)).bytes
        #expect(sameInks, "raw inks differ from Pillow's")

        let outcome = ColorManagement.convertToSRGB(&decoded)
        guard case .converted = outcome else {
            Issue.record("not converted through the profile: \(outcome)")
            return
        }
        let reference = try PillowDecode.decode(file, command: "reference-srgb")
        let ssim = SSIM.compare(decoded.pixels, reference.pixels, channels: .rgb)
        let worst = Compare.maxDifference(decoded.pixels.pixels, reference.bytes, channels: [0, 1, 2])
        print("TIFF CMYK with Ghostscript's profile: SSIM \(ssim) against Pillow + ImageCms, largest difference \(worst.difference)")
        #expect(ssim >= 0.97)
    }
}
