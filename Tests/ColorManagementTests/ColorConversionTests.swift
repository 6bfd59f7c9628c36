import ChildProcess
import ColorManagement
import Foundation
import ImageCodecs
import ImageCore
import ImageQuality
import TestSupport
import Thumbnailer
import Testing

/// Tagged images made from sRGB originals by Pillow's ImageCms (the independent reference): thumbd's
/// conversion to sRGB must land within a mean CIEDE2000 of 1.0 of Pillow's, and reading the same
/// samples as sRGB (what thumbd did before) must be visibly wrong, so the check can fail.
@Suite("Colour management")
struct ColorConversionTests {
    static let script = TestPaths.packageRoot.appendingPathComponent("Tests/ColorManagementTests/Scripts/tag_image.py").path
    static let pillowReady = ChildProcess.isInstalled("python3")
        && ((try? ChildProcess.run("python3", ["-c", "from PIL import ImageCms"], timeoutSeconds: 60))?.status == 0)

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var format: String
        var profile: @Sendable () throws -> [UInt8]
        var testDescription: String { "\(name) in \(format)" }
    }

    static let cases: [Case] = [
        Case(name: "Display P3", format: "jpeg", profile: { try TestProfiles.displayP3() }),
        Case(name: "Display P3", format: "webp", profile: { try TestProfiles.displayP3() }),
        Case(name: "Adobe RGB (1998)", format: "png", profile: { try TestProfiles.adobeRGB() }),
        Case(name: "Adobe RGB (1998)", format: "jpeg", profile: { try TestProfiles.adobeRGB() }),
        Case(name: "ProPhoto (ROMM) RGB", format: "jpeg", profile: { try TestPaths.bytes(URL(fileURLWithPath: TestProfiles.romm)) }),
        Case(name: "CMYK print", format: "jpeg", profile: { try TestPaths.bytes(URL(fileURLWithPath: TestProfiles.cmyk)) }),
    ]

    /// Writes the profile, has Pillow make the tagged file and its reference; returns both files' bytes.
    static func make(_ testCase: Case, source: String = "chart") throws -> (tagged: [UInt8], reference: PixelBuffer, referenceFile: [UInt8]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-colour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let profile = dir.appendingPathComponent("profile.icc").path
        try Data(try testCase.profile()).write(to: URL(fileURLWithPath: profile))
        let tagged = dir.appendingPathComponent("tagged.\(testCase.format)").path
        let reference = dir.appendingPathComponent("reference.png").path
        let run = try ChildProcess.run("python3", [script, source, profile, testCase.format, tagged, reference], timeoutSeconds: 120)
        guard run.status == 0 else { throw TestProfileError("tag_image.py failed: \(run.stderrText)") }
        let referenceFile = try TestPaths.bytes(URL(fileURLWithPath: reference))
        return (try TestPaths.bytes(URL(fileURLWithPath: tagged)), try ImageCodecs.decode(referenceFile).pixels, referenceFile)
    }

    @Test(.requires(pillowReady, "python3 with Pillow (ImageCms) is not installed: the colour reference tests cannot run"),
          arguments: cases)
    func taggedImagesComeOutAsPillowConvertsThem(_ testCase: Case) throws {
        if testCase.name.contains("ROMM") || testCase.name.contains("CMYK") {
            try #require(FileManager.default.fileExists(atPath: TestProfiles.cmyk), "Ghostscript's ICC profiles are missing: apt-get install libgs-common")
        }
        let (tagged, reference, referenceFile) = try Self.make(testCase)
        let (decoded, outcome) = try ImageCodecs.decodeToSRGB(tagged)
        guard case .converted = outcome else {
            Issue.record("expected a conversion, got \(outcome)")
            return
        }
        let managed = try #require(ColorDifference.compare(decoded.pixels, reference))
        #expect(managed.mean <= 1.0, "mean ΔE00 \(managed.mean) (max \(managed.max)) from Pillow's conversion")

        // A thumbnail converts after the resize: it must match the thumbnail of the reference.
        let request = ThumbnailRequest(size: 64, fit: .cover)
        let thumbnail = try Thumbnailer.render(from: tagged, request)
        #expect(thumbnail.color == outcome)
        let expected = try Thumbnailer.render(from: referenceFile, request).pixels
        let small = try #require(ColorDifference.compare(thumbnail.pixels, expected))
        #expect(small.mean <= 1.0, "thumbnail: mean ΔE00 \(small.mean) (max \(small.max)) from the reference's thumbnail")

        var unmanaged = try ImageCodecs.decodeAsStored(tagged)
        if case .cmyk(let inverted) = unmanaged.samples { unmanaged.pixels.convertNaiveCMYKToRGBA(inverted: inverted) }
        let wrong = try #require(ColorDifference.compare(unmanaged.pixels, reference))
        #expect(wrong.mean > 2.0, "reading the samples as sRGB is only ΔE00 \(wrong.mean) off: the test image is too tame to tell")
    }

    @Test func untaggedImagesAreNotTouched() throws {
        for name in ["exif-orientation6.png", "palette-trns.png"] {
            let data = try TestPaths.bytes(TestPaths.testImages.appendingPathComponent("png/" + name))
            let (decoded, outcome) = try ImageCodecs.decodeToSRGB(data)
            #expect(outcome == .sRGB)
            #expect(decoded.pixels == (try ImageCodecs.decodeAsStored(data)).pixels)
        }
    }
}
