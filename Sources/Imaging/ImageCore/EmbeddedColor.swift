/// What an image file says about the colours of its samples. Codecs report it; `ColorManagement`
/// turns it into sRGB. Nothing said means sRGB, as browsers and libvips assume.
public enum EmbeddedColor: Sendable, Equatable {
    /// No colour information: the samples are taken as sRGB.
    case unspecified
    /// The file declares sRGB (PNG's `sRGB` chunk).
    case sRGB
    /// An ICC profile, as stored (JPEG APP2 chunks joined in order, PNG `iCCP` inflated, WebP `ICCP`).
    case iccProfile([UInt8])
    /// PNG's `gAMA` (and `cHRM`) without a profile or `sRGB` chunk: the file's encoding exponent
    /// (0.45455 for a display gamma of 2.2) and, when given, its primaries and white point.
    case pngGamma(fileGamma: Double, chromaticities: Chromaticities?)
    /// A profile the codec could not take out whole (a missing or repeated JPEG chunk, a damaged
    /// `iCCP`): the samples are taken as sRGB, and the answer says why.
    case unusableProfile(reason: String)

    /// CIE xy chromaticities of the white point and the three primaries.
    public struct Chromaticities: Sendable, Equatable {
        public var white: (x: Double, y: Double)
        public var red: (x: Double, y: Double)
        public var green: (x: Double, y: Double)
        public var blue: (x: Double, y: Double)

        public init(white: (x: Double, y: Double), red: (x: Double, y: Double), green: (x: Double, y: Double), blue: (x: Double, y: Double)) {
            (self.white, self.red, self.green, self.blue) = (white, red, green, blue)
        }

        public static func == (a: Chromaticities, b: Chromaticities) -> Bool {
            a.white == b.white && a.red == b.red && a.green == b.green && a.blue == b.blue
        }
    }
}

/// What the four bytes of each decoded pixel hold. Only a codec's own `decode` returns CMYK (for a
/// CMYK JPEG with a profile, so the profile can be applied); `ImageCodecs.decode` always gives RGBA.
public enum DecodedSamples: Sendable, Equatable {
    case rgba
    /// C, M, Y, K. `inverted`: 255 means no ink (Adobe's convention, signalled by its APP14 marker).
    case cmyk(inverted: Bool)
}
