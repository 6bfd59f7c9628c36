import CLCMS2
import ImageCore

/// A conversion to sRGB waiting to be applied (see `ColorManagement.prepareConversion`).
public struct ColorConversion: Sendable {
    public let outcome: ColorOutcome
    let transform: ColorTransform?

    /// Converts `pixels` (RGBA, as the decoded image holds them) in place; nothing when there is
    /// nothing to convert.
    public func apply(to pixels: inout PixelBuffer) {
        transform?.apply(to: &pixels)
    }

    public var changesPixels: Bool { transform != nil }
}

/// Turns decoded pixels into sRGB, the one colour space thumbnails and prepared uploads are written
/// in (they carry no profile: browsers take untagged images as sRGB, and a profile would cost bytes
/// in every thumbnail). Runs on the decoded image, which is already reduced by the decoder's scaling,
/// so a conversion costs a small share of a thumbnail.
public enum ColorManagement {
    /// Largest profile accepted; real ones are 0.5 KB (matrix-shaper) to about 3 MB (print CMYK).
    public static let maxProfileBytes = 4 << 20

    static let sRGBChromaticities = EmbeddedColor.Chromaticities(
        white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06))

    private static let transforms = TransformCache()

    /// Converts `image` to sRGB RGBA in place (CMYK samples included) and says what it did. Never
    /// fails: colour information that cannot be used leaves the samples as they are (CMYK converted
    /// without a profile), and the outcome says why.
    public static func convertToSRGB(_ image: inout DecodedImage) -> ColorOutcome {
        let conversion = prepareConversion(&image)
        conversion.apply(to: &image.pixels)
        return conversion.outcome
    }

    /// The conversion `image` needs, with what must happen at once already done: CMYK samples are
    /// turned into sRGB RGBA here (through the profile, or without one), since nothing else can
    /// read them. An RGB or grey conversion is handed back to be applied where it costs least: a
    /// thumbnail applies it to its resized pixels, not to the larger decoded image (the colour
    /// transform is per pixel, so it commutes with cropping and, to well under a visible step,
    /// with the resampling's averaging).
    public static func prepareConversion(_ image: inout DecodedImage) -> ColorConversion {
        let cmyk: Bool?
        if case .cmyk(let inverted) = image.samples { cmyk = inverted } else { cmyk = nil }
        var conversion: ColorConversion
        switch image.color {
        case .unspecified, .sRGB:
            conversion = ColorConversion(outcome: .sRGB, transform: nil)
        case .unusableProfile(let reason):
            conversion = ColorConversion(outcome: .ignored(reason: reason), transform: nil)
        case .iccProfile(let bytes) where bytes.count > maxProfileBytes:
            // Refused before the cache: it keeps no trace of a profile this large.
            conversion = ColorConversion(outcome: .ignored(reason: ICCProfile.tooLarge(bytes.count)), transform: nil)
        case .iccProfile(let bytes):
            conversion = lookUp(.icc(bytes), image.pixels, cmykInverted: cmyk)
        case .pngGamma(let gamma, let chromaticities):
            conversion = isSRGBLike(gamma: gamma, chromaticities) ? ColorConversion(outcome: .sRGB, transform: nil)
                : lookUp(.pngGamma(fileGamma: gamma, chromaticities: chromaticities.map(points)), image.pixels, cmykInverted: cmyk)
        }
        if case .cmyk(let inverted) = image.samples {
            if let transform = conversion.transform {
                transform.apply(to: &image.pixels)
                conversion = ColorConversion(outcome: conversion.outcome, transform: nil)
            } else {
                image.pixels.convertNaiveCMYKToRGBA(inverted: inverted)
            }
            image.samples = .rgba
        }
        return conversion
    }

    /// Whether decoding an image described by `color` would change its colours: a profile Little CMS
    /// accepts (RGB other than sRGB, grey or CMYK), or PNG gamma other than sRGB's. (For deciding whether a file can be
    /// handed on without its metadata, before any pixel is decoded.)
    public static func changesColors(_ color: EmbeddedColor) -> Bool {
        let source: TransformCache.Source
        switch color {
        case .unspecified, .sRGB, .unusableProfile: return false
        case .iccProfile(let bytes) where bytes.count > maxProfileBytes: return false
        case .iccProfile(let bytes): source = .icc(bytes)
        case .pngGamma(let gamma, let chromaticities):
            if isSRGBLike(gamma: gamma, chromaticities) { return false }
            source = .pngGamma(fileGamma: gamma, chromaticities: chromaticities.map(points))
        }
        // Whichever kind of samples the profile is for: a CMYK or grey profile converts too.
        for input in [ColorTransform.Input.rgba, .cmyk(inverted: false), .grayInRGBA] {
            if case .transform = transforms.entry(.init(source: source, input: input), build: { build(source, input: input) }) { return true }
        }
        return false
    }

    private static func points(_ c: EmbeddedColor.Chromaticities) -> [Double] {
        [c.white.x, c.white.y, c.red.x, c.red.y, c.green.x, c.green.y, c.blue.x, c.blue.y]
    }

    private static func lookUp(_ source: TransformCache.Source, _ pixels: PixelBuffer, cmykInverted: Bool?) -> ColorConversion {
        let input: ColorTransform.Input
        if let cmykInverted {
            input = .cmyk(inverted: cmykInverted)
        } else {
            input = isGrey(pixels) ? .grayInRGBA : .rgba
        }
        switch transforms.entry(.init(source: source, input: input), build: { build(source, input: input) }) {
        case .identity:
            return ColorConversion(outcome: .sRGB, transform: nil)
        case .transform(let transform, let name):
            return ColorConversion(outcome: .converted(from: name), transform: transform)
        case .refused(let problem):
            return ColorConversion(outcome: .ignored(reason: problem.reason), transform: nil)
        }
    }

    private static func build(_ source: TransformCache.Source, input: ColorTransform.Input) -> TransformCache.Entry {
        let opened: Result<ICCProfile, ColorProblem>
        switch source {
        case .icc(let bytes):
            opened = ICCProfile.open(bytes)
        case .pngGamma(let gamma, let points):
            let chromaticities = points.map { p in
                EmbeddedColor.Chromaticities(white: (p[0], p[1]), red: (p[2], p[3]), green: (p[4], p[5]), blue: (p[6], p[7]))
            }
            opened = ICCProfile.pngGamma(fileGamma: gamma, chromaticities: chromaticities)
        }
        let profile: ICCProfile
        switch opened {
        case .success(let p): profile = p
        case .failure(let problem): return .refused(problem)
        }
        switch (profile.space, input) {
        case (.cmyk, .cmyk), (.rgb, .rgba), (.gray, .grayInRGBA): break
        // An RGB profile on a grey image converts it as the neutral colour it is.
        case (.rgb, .grayInRGBA):
            return build(profile, input: .rgba)
        case (.cmyk, _):
            return .refused(ColorProblem("its ICC profile is for CMYK but the image is not CMYK"))
        case (_, .cmyk):
            return .refused(ColorProblem("the image is CMYK but its ICC profile is not"))
        case (.gray, .rgba):
            return .refused(ColorProblem("its ICC profile is for grey but the image has colour"))
        }
        return build(profile, input: input)
    }

    private static func build(_ profile: ICCProfile, input: ColorTransform.Input) -> TransformCache.Entry {
        guard let target = ICCProfile.sRGB() else { return .refused(ColorProblem("Little CMS could not make sRGB")) }
        if input == .rgba && profile.matches(target) { return .identity }
        guard let transform = ColorTransform(from: profile, to: target, input: input) else {
            return .refused(ColorProblem("Little CMS refused its colour profile (\(profile.name))"))
        }
        return .transform(transform, name: profile.name)
    }

    /// gAMA 1/2.2 with sRGB's primaries (or none): what writers put beside sRGB data. Converting a
    /// pure 2.2 power curve to sRGB's moves no 8-bit value by more than a step or two.
    private static func isSRGBLike(gamma: Double, _ chromaticities: EmbeddedColor.Chromaticities?) -> Bool {
        guard abs(gamma - 1 / 2.2) < 0.001 else { return false }
        guard let c = chromaticities else { return true }
        let s = sRGBChromaticities
        let pairs = [(c.white, s.white), (c.red, s.red), (c.green, s.green), (c.blue, s.blue)]
        return pairs.allSatisfy { abs($0.0.x - $0.1.x) < 0.001 && abs($0.0.y - $0.1.y) < 0.001 }
    }

    /// Whether every pixel has R = G = B (a grey image the decoder expanded to RGBA).
    private static func isGrey(_ image: PixelBuffer) -> Bool {
        image.pixels.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                if p[i] != p[i + 1] || p[i] != p[i + 2] { return false }
                i += 4
            }
            return true
        }
    }
}

extension ColorManagement {
    /// Little CMS as loaded at run time ("2.14").
    public static var libraryVersion: String {
        let packed = Int(cmsGetEncodedCMMversion())  // major * 1000 + minor * 10 (2140 for 2.14)
        return "\(packed / 1000).\(packed % 1000 / 10)"
    }
}
