import CLCMS2
import Foundation

/// ICC profiles for the tests. Display P3 and Adobe RGB (1998) are built from their published
/// primaries, white points and transfer curves with Little CMS and saved as files; ProPhoto (ROMM)
/// RGB and a CMYK print profile come from Ghostscript's ICC set (Debian's libgs-common, which
/// `make test` installs).
enum TestProfiles {
    static let ghostscript = "/usr/share/color/icc/ghostscript"
    static var romm: String { ghostscript + "/rommrgb.icc" }
    static var cmyk: String { ghostscript + "/default_cmyk.icc" }

    static func displayP3() throws -> [UInt8] {
        // sRGB's piecewise curve: y = ((x + 0.055) / 1.055)^2.4 above 0.04045, x / 12.92 below.
        let parameters: [Double] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        return try matrixShaper(description: "Display P3 (test)", white: (0.3127, 0.3290),
                                primaries: [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)],
                                curve: parameters.withUnsafeBufferPointer { cmsBuildParametricToneCurve(nil, 4, $0.baseAddress) })
    }

    static func adobeRGB() throws -> [UInt8] {
        try matrixShaper(description: "Adobe RGB (1998) (test)", white: (0.3127, 0.3290),
                         primaries: [(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)], curve: cmsBuildGamma(nil, 563.0 / 256))
    }

    private static func matrixShaper(description: String, white: (Double, Double), primaries: [(Double, Double)],
                                     curve: OpaquePointer?) throws -> [UInt8] {
        guard let curve else { throw TestProfileError("lcms2 could not build a tone curve") }
        defer { cmsFreeToneCurve(curve) }
        var whitePoint = cmsCIExyY(x: white.0, y: white.1, Y: 1)
        var triple = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: primaries[0].0, y: primaries[0].1, Y: 1),
                                     Green: cmsCIExyY(x: primaries[1].0, y: primaries[1].1, Y: 1),
                                     Blue: cmsCIExyY(x: primaries[2].0, y: primaries[2].1, Y: 1))
        var curves: [OpaquePointer?] = [curve, curve, curve]
        guard let profile = curves.withUnsafeMutableBufferPointer({ cmsCreateRGBProfile(&whitePoint, &triple, $0.baseAddress) }) else {
            throw TestProfileError("lcms2 could not build \(description)")
        }
        defer { cmsCloseProfile(profile) }
        guard let text = cmsMLUalloc(nil, 1) else { throw TestProfileError("lcms2 could not allocate a description") }
        defer { cmsMLUfree(text) }
        cmsMLUsetASCII(text, "en", "US", description)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(text))
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0, size > 0 else { throw TestProfileError("lcms2 could not size \(description)") }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        guard bytes.withUnsafeMutableBytes({ cmsSaveProfileToMem(profile, $0.baseAddress, &size) }) != 0 else {
            throw TestProfileError("lcms2 could not save \(description)")
        }
        return bytes
    }
}

struct TestProfileError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
