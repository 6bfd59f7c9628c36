import CTIFF
import ImageCore

/// How a directory's colour samples are to be read.
enum TIFFColorModel: Equatable {
    /// One grey sample; `minIsWhite` (photometric 0) stores 0 as white.
    case grey(minIsWhite: Bool)
    /// One index into the colour map.
    case palette
    case rgb
    /// Four inks, 0 meaning none (ink set 1); converted later with the file's profile (or naively).
    case cmyk
    /// YCbCr that libtiff's JPEG codec turns into RGB while decoding (JPEG compression).
    case ycbcrThroughJPEG
    /// YCbCr in any other compression: libtiff's RGBA reader upsamples and converts it.
    case ycbcrThroughRGBAReader

    /// For messages.
    var name: String {
        switch self {
        case .grey(let minIsWhite): minIsWhite ? "grey (MinIsWhite)" : "grey"
        case .palette: "palette"
        case .rgb: "RGB"
        case .cmyk: "CMYK"
        case .ycbcrThroughJPEG, .ycbcrThroughRGBAReader: "YCbCr"
        }
    }
}

/// Where the alpha sample is, and whether the colour samples were multiplied by it.
struct TIFFAlpha: Equatable {
    /// The sample's index within a pixel (after the colour samples).
    let sampleIndex: Int
    /// ExtraSamples 1 (associated, premultiplied) rather than 2 (unassociated).
    let associated: Bool
}

/// The first directory's facts that decide how its pixels are read, with everything thumbd does
/// not read refused (`unsupported_format`) and the size checked against the limits, before any
/// pixel memory exists.
struct TIFFDirectory {
    let width: Int
    let height: Int
    let bitsPerSample: Int
    let samplesPerPixel: Int
    let compression: UInt16
    /// PlanarConfiguration 2 with more than one sample: each sample in strips or tiles of its own.
    let planesSeparate: Bool
    /// The Orientation tag, numbered as EXIF's (1 upright ... 8); values outside 1-8 read as upright.
    let orientation: Orientation
    let model: TIFFColorModel
    let alpha: TIFFAlpha?

    /// Whether the decoded image keeps an alpha channel (CMYK's is flattened, see `TIFFPixelConverter`).
    var hasAlpha: Bool { alpha != nil && model != .cmyk }

    var info: ImageInfo {
        ImageInfo(format: .tiff, width: width, height: height, hasAlpha: hasAlpha, orientation: orientation, isAnimated: false)
    }

    /// Reads and checks the directory libtiff has open. For JPEG-compressed YCbCr this also asks
    /// libtiff's JPEG codec for RGB, which changes the strip size libtiff computes from here on.
    init(_ file: borrowing LibTIFFFile, limits: DecodeLimits) throws(ImageError) {
        guard let width = file.u32(TIFFTAG_IMAGEWIDTH, defaulted: false),
              let height = file.u32(TIFFTAG_IMAGELENGTH, defaulted: false) else {
            throw .corrupt("the TIFF directory has no ImageWidth or ImageLength")
        }
        try limits.check(width: Int(width), height: Int(height))
        self.width = Int(width)
        self.height = Int(height)

        let bits = Int(file.u16(TIFFTAG_BITSPERSAMPLE) ?? 1)
        let samples = Int(file.u16(TIFFTAG_SAMPLESPERPIXEL) ?? 1)
        guard samples >= 1 else { throw .corrupt("TIFF declares \(samples) samples per pixel") }
        bitsPerSample = bits
        samplesPerPixel = samples
        try Self.checkSampleFormat(file.u16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT), bits: bits)

        compression = file.u16(TIFFTAG_COMPRESSION) ?? UInt16(COMPRESSION_NONE)
        guard TIFFIsCODECConfigured(compression) != 0 else {
            throw .unsupported("TIFF compression \(compression), which libtiff \(LibTIFF.version) was built without")
        }
        planesSeparate = samples > 1 && file.u16(TIFFTAG_PLANARCONFIG) == UInt16(PLANARCONFIG_SEPARATE)
        orientation = Orientation(exifValue: Int(file.u16(TIFFTAG_ORIENTATION) ?? 1))

        guard let photometric = file.u16(TIFFTAG_PHOTOMETRIC, defaulted: false) else {
            throw .corrupt("the TIFF directory has no PhotometricInterpretation")
        }
        let (model, colorSamples) = try Self.colorModel(file, photometric: photometric, compression: compression)
        guard samples >= colorSamples else {
            throw .corrupt("TIFF photometric \(photometric) needs \(colorSamples) samples per pixel, the file has \(samples)")
        }
        self.model = model
        try Self.checkDepth(bits, model: model)
        if model == .ycbcrThroughJPEG {
            // libjpeg holds the three YCbCr components and nothing else.
            guard samples == 3, !planesSeparate else {
                throw .unsupported("JPEG-compressed YCbCr TIFF with \(samples) samples\(planesSeparate ? " in separate planes" : "")")
            }
            guard file.requestJPEGRGBOutput() else { throw file.failure.error("asking libtiff's JPEG codec for RGB") }
        }

        // The extra samples follow the colour samples; the first one marked as alpha is the alpha.
        let extras = file.extraSamples.prefix(samples - colorSamples)
        alpha = extras.firstIndex { $0 == UInt16(EXTRASAMPLE_ASSOCALPHA) || $0 == UInt16(EXTRASAMPLE_UNASSALPHA) }.map {
            TIFFAlpha(sampleIndex: colorSamples + $0, associated: extras[$0] == UInt16(EXTRASAMPLE_ASSOCALPHA))
        }
    }

    private static func checkSampleFormat(_ format: UInt16, bits: Int) throws(ImageError) {
        switch Int32(format) {
        case SAMPLEFORMAT_UINT, SAMPLEFORMAT_VOID: return
        case SAMPLEFORMAT_IEEEFP: throw .unsupported("TIFF with floating-point samples (\(bits)-bit SampleFormat 3): thumbd reads unsigned integer samples")
        case SAMPLEFORMAT_INT: throw .unsupported("TIFF with signed integer samples (SampleFormat 2): thumbd reads unsigned integer samples")
        default: throw .unsupported("TIFF with SampleFormat \(format): thumbd reads unsigned integer samples")
        }
    }

    /// The colour model of a photometric interpretation, and how many colour samples it has.
    private static func colorModel(_ file: borrowing LibTIFFFile, photometric: UInt16,
                                   compression: UInt16) throws(ImageError) -> (TIFFColorModel, Int) {
        switch Int32(photometric) {
        case PHOTOMETRIC_MINISWHITE: return (.grey(minIsWhite: true), 1)
        case PHOTOMETRIC_MINISBLACK: return (.grey(minIsWhite: false), 1)
        case PHOTOMETRIC_PALETTE: return (.palette, 1)
        case PHOTOMETRIC_RGB: return (.rgb, 3)
        case PHOTOMETRIC_SEPARATED:
            let inkSet = file.u16(TIFFTAG_INKSET) ?? UInt16(INKSET_CMYK)
            let inks = file.u16(TIFFTAG_NUMBEROFINKS) ?? 4
            guard inkSet == UInt16(INKSET_CMYK), inks == 4 else {
                throw .unsupported("TIFF with \(inks) separated inks of ink set \(inkSet): thumbd reads CMYK (ink set 1, 4 inks) only")
            }
            return (.cmyk, 4)
        case PHOTOMETRIC_YCBCR:
            return (Int32(compression) == COMPRESSION_JPEG ? .ycbcrThroughJPEG : .ycbcrThroughRGBAReader, 3)
        case PHOTOMETRIC_CIELAB, PHOTOMETRIC_ICCLAB, PHOTOMETRIC_ITULAB:
            throw .unsupported("TIFF in CIE L*a*b* colour (photometric \(photometric)): thumbd reads grey, palette, RGB, CMYK and YCbCr")
        case PHOTOMETRIC_LOGL, PHOTOMETRIC_LOGLUV:
            throw .unsupported("TIFF in SGI LogL/LogLuv HDR encoding (photometric \(photometric))")
        case PHOTOMETRIC_CFA, 34892:  // 34892: DNG LinearRaw
            throw .unsupported("TIFF holding raw camera data (photometric \(photometric)), not an image")
        default:
            throw .unsupported("TIFF with photometric interpretation \(photometric)")
        }
    }

    private static func checkDepth(_ bits: Int, model: TIFFColorModel) throws(ImageError) {
        let supported: Set<Int> = switch model {
        case .grey, .palette: [1, 2, 4, 8, 16]
        case .rgb, .cmyk: [8, 16]
        case .ycbcrThroughJPEG, .ycbcrThroughRGBAReader: [8]
        }
        guard supported.contains(bits) else {
            let allowed = supported.sorted().map(String.init).joined(separator: ", ")
            throw .unsupported("TIFF with \(bits)-bit samples for \(model.name): thumbd reads \(allowed) bits here")
        }
    }
}
