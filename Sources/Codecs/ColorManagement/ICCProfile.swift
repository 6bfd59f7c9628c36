import CLCMS2
import Foundation
import ImageCore

/// An ICC profile opened by Little CMS. Profiles read their tags lazily and are not safe to share
/// between threads, so one lives only while `TransformCache` builds a transform under its lock.
final class ICCProfile {
    enum Space: Equatable { case rgb, gray, cmyk }

    let handle: cmsHPROFILE
    let space: Space
    /// The profile's description ("Display P3", "Adobe RGB (1998)"), for the answer.
    let name: String

    private init(handle: cmsHPROFILE, space: Space, name: String) {
        self.handle = handle
        self.space = space
        self.name = name
    }

    deinit { cmsCloseProfile(handle) }

    /// Opens `bytes` as a profile thumbd can convert from, or says why not.
    static func open(_ bytes: [UInt8]) -> Result<ICCProfile, ColorProblem> {
        guard bytes.count <= ColorManagement.maxProfileBytes else { return .failure(.init(tooLarge(bytes.count))) }
        // lcms2 checks the header and tag table as it opens; a damaged tag fails later, when read.
        guard let handle = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }) else {
            return .failure(.init("its ICC profile is damaged (Little CMS could not read it)"))
        }
        return wrap(handle, what: "its ICC profile")
    }

    /// A profile for PNG's gAMA (and cHRM): a power-law transfer curve, sRGB's primaries and white
    /// point unless cHRM gives others.
    static func pngGamma(fileGamma: Double, chromaticities: EmbeddedColor.Chromaticities?) -> Result<ICCProfile, ColorProblem> {
        guard fileGamma.isFinite, (0.01...10).contains(fileGamma) else {
            return .failure(.init("its PNG gAMA of \(fileGamma) is out of range"))
        }
        let c = chromaticities ?? ColorManagement.sRGBChromaticities
        var white = cmsCIExyY(x: c.white.x, y: c.white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: c.red.x, y: c.red.y, Y: 1),
                                        Green: cmsCIExyY(x: c.green.x, y: c.green.y, Y: 1),
                                        Blue: cmsCIExyY(x: c.blue.x, y: c.blue.y, Y: 1))
        guard let curve = cmsBuildGamma(nil, 1 / fileGamma) else { return .failure(.init("its PNG gAMA could not be used")) }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let handle = curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }
        guard let handle else { return .failure(.init("its PNG gAMA and cHRM do not make a usable colour space")) }
        return wrap(handle, what: "its PNG gAMA/cHRM", name: "PNG gamma \(String(format: "%.5g", fileGamma))")
    }

    static func tooLarge(_ count: Int) -> String {
        "its ICC profile is \(count) bytes, over the limit of \(ColorManagement.maxProfileBytes)"
    }

    /// Little CMS's own sRGB: the target of every conversion.
    static func sRGB() -> ICCProfile? {
        guard let handle = cmsCreate_sRGBProfile() else { return nil }
        return ICCProfile(handle: handle, space: .rgb, name: "sRGB")
    }

    private static func wrap(_ handle: cmsHPROFILE, what: String, name: String? = nil) -> Result<ICCProfile, ColorProblem> {
        let space: Space
        switch cmsGetColorSpace(handle) {
        case cmsSigRgbData: space = .rgb
        case cmsSigGrayData: space = .gray
        case cmsSigCmykData: space = .cmyk
        default:
            cmsCloseProfile(handle)
            return .failure(.init("\(what) describes a colour space thumbd does not convert from (only RGB, grey and CMYK)"))
        }
        switch cmsGetDeviceClass(handle) {
        case cmsSigInputClass, cmsSigDisplayClass, cmsSigOutputClass, cmsSigColorSpaceClass: break
        default:
            cmsCloseProfile(handle)
            return .failure(.init("\(what) is a device link, abstract or named-colour profile, not an image's colour space"))
        }
        return .success(ICCProfile(handle: handle, space: space, name: name ?? description(of: handle) ?? "an ICC profile"))
    }

    private static func description(of handle: cmsHPROFILE) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &buffer, cmsUInt32Number(buffer.count))
        guard length > 1 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// Whether this RGB profile is sRGB in all but name: the same colorants and tone curves (to
    /// well under one 8-bit step), so converting would change nothing.
    func matches(_ reference: ICCProfile) -> Bool {
        guard space == .rgb, reference.space == .rgb, cmsIsMatrixShaper(handle) != 0, cmsIsMatrixShaper(reference.handle) != 0 else {
            return false
        }
        let colorants = [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag]
        for tag in colorants {
            guard let mine = cmsReadTag(handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee,
                  let theirs = cmsReadTag(reference.handle, tag)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee,
                  abs(mine.X - theirs.X) < 0.002, abs(mine.Y - theirs.Y) < 0.002, abs(mine.Z - theirs.Z) < 0.002 else { return false }
        }
        let curves = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]
        for tag in curves {
            guard let mine = cmsReadTag(handle, tag).map({ OpaquePointer($0) }),
                  let theirs = cmsReadTag(reference.handle, tag).map({ OpaquePointer($0) }) else { return false }
            for step in 0...16 {
                let x = Float(step) / 16
                if abs(cmsEvalToneCurveFloat(mine, x) - cmsEvalToneCurveFloat(theirs, x)) > 0.0015 { return false }
            }
        }
        return true
    }
}

/// Why a file's colour information was not used, in words for the answer.
struct ColorProblem: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
