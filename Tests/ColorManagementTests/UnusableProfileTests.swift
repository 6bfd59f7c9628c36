import ColorManagement
import Foundation
import ImageCodecs
import ImageCore
import TestSupport
import Testing

/// Colour information that cannot be used never stops an image: it is made as sRGB, and the
/// outcome says why.
@Suite("Unusable colour profiles")
struct UnusableProfileTests {
    /// A 64x48 photo-like JPEG from our own encoder.
    static func plainJPEG() throws -> [UInt8] {
        var image = PixelBuffer(width: 64, height: 48)
        for y in 0..<48 {
            for x in 0..<64 {
                let i = (y * 64 + x) * 4
                image.pixels[i] = UInt8(x * 4)
                image.pixels[i + 1] = UInt8(y * 5)
                image.pixels[i + 2] = UInt8((x + y) * 2)
            }
        }
        return try ImageCodecs.encode(image, .jpeg(quality: 90))
    }

    private func expectIgnored(_ data: [UInt8], mentioning words: String) throws {
        let (decoded, outcome) = try ImageCodecs.decodeToSRGB(data)
        guard case .ignored(let reason) = outcome else {
            Issue.record("expected the profile to be ignored, got \(outcome)")
            return
        }
        #expect(reason.contains(words), "\(reason)")
        #expect(decoded.pixels == (try ImageCodecs.decodeAsStored(data)).pixels, "the pixels must be as stored (taken as sRGB)")
        #expect(outcome.headerValue.hasPrefix("ignored; reason=\""))
    }

    @Test func aCorruptProfileIsIgnored() throws {
        var random = SeededRandom(seed: 11)
        let garbage = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &random) }
        try expectIgnored(ICCTagging.jpeg(try Self.plainJPEG(), profile: garbage), mentioning: "damaged")
    }

    @Test func aProfileOverTheLimitIsIgnored() throws {
        let huge = [UInt8](repeating: 7, count: ColorManagement.maxProfileBytes + 1)
        try expectIgnored(ICCTagging.jpeg(try Self.plainJPEG(), profile: huge), mentioning: "over the limit")
    }

    @Test func aMissingOrRepeatedChunkIsIgnored() throws {
        let profile = try TestProfiles.displayP3() + [UInt8](repeating: 0, count: 70_000)
        let jpeg = try Self.plainJPEG()
        try expectIgnored(ICCTagging.jpeg(jpeg, profile: profile, dropping: 1), mentioning: "missing")
        try expectIgnored(ICCTagging.jpeg(jpeg, profile: profile, order: [0, 0]), mentioning: "twice")
    }

    @Test func chunksOutOfOrderAreJoinedByNumber() throws {
        // Display P3 padded past one segment: its tag table still points inside the first bytes.
        let profile = try TestProfiles.displayP3() + [UInt8](repeating: 0, count: 70_000)
        let (_, outcome) = try ImageCodecs.decodeToSRGB(ICCTagging.jpeg(try Self.plainJPEG(), profile: profile, order: [1, 0]))
        #expect(outcome == .converted(from: "Display P3 (test)"))
    }

    @Test func aProfileForAnotherKindOfImageIsIgnored() throws {
        guard FileManager.default.fileExists(atPath: TestProfiles.cmyk) else {
            Issue.record("Ghostscript's ICC profiles are missing: apt-get install libgs-common")
            return
        }
        let cmyk = try TestPaths.bytes(URL(fileURLWithPath: TestProfiles.cmyk))
        try expectIgnored(ICCTagging.jpeg(try Self.plainJPEG(), profile: cmyk), mentioning: "CMYK")
    }

    @Test func anSRGBProfileChangesNothing() throws {
        let jpeg = try Self.plainJPEG()
        let srgb = try TestPaths.bytes(URL(fileURLWithPath: TestProfiles.ghostscript + "/srgb.icc"))
        let (decoded, outcome) = try ImageCodecs.decodeToSRGB(ICCTagging.jpeg(jpeg, profile: srgb))
        #expect(outcome == .sRGB)
        #expect(decoded.pixels == (try ImageCodecs.decode(jpeg)).pixels)
    }
}

/// Whether a file can be handed on without its metadata hangs on this: any profile that would
/// change the colours, whatever kind of samples it is for.
@Suite("Which profiles change colours")
struct ChangesColorsTests {
    @Test func everyUsableProfileButSRGBChangesColours() throws {
        func profile(_ name: String) throws -> EmbeddedColor {
            .iccProfile(try TestPaths.bytes(URL(fileURLWithPath: TestProfiles.ghostscript + "/" + name)))
        }
        try #require(FileManager.default.fileExists(atPath: TestProfiles.cmyk), "Ghostscript's ICC profiles are missing: apt-get install libgs-common")
        #expect(ColorManagement.changesColors(try profile("default_cmyk.icc")), "a CMYK print profile")
        #expect(ColorManagement.changesColors(try profile("rommrgb.icc")), "ProPhoto RGB")
        #expect(ColorManagement.changesColors(.iccProfile(try TestProfiles.displayP3())))
        #expect(!ColorManagement.changesColors(try profile("srgb.icc")), "sRGB under another name")
        #expect(!ColorManagement.changesColors(.iccProfile([UInt8](repeating: 9, count: 500))), "damaged: taken as sRGB")
        #expect(!ColorManagement.changesColors(.iccProfile([UInt8](repeating: 0, count: ColorManagement.maxProfileBytes + 1))))
        #expect(ColorManagement.changesColors(.pngGamma(fileGamma: 1.0, chromaticities: nil)))
        #expect(!ColorManagement.changesColors(.pngGamma(fileGamma: 1 / 2.2, chromaticities: nil)))
    }
}
