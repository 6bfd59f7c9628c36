import CAVIF
import CJPEG
import CPNG
import CWebP
import ColorManagement
import GIFCodec
import HEIFCodec
import JXLCodec
import TIFFCodec

/// The versions of the image libraries thumbd runs with, for `thumbd --version` and bug reports.
public struct CodecLibraryVersions: Sendable, Equatable {
    /// libjpeg-turbo as compiled against: 2.1 has no call that reports the loaded library's version.
    public var libjpegTurbo: String
    /// libpng as loaded at run time.
    public var libpng: String
    /// libwebp's decoder as loaded at run time.
    public var libwebp: String
    /// Little CMS as loaded at run time.
    public var lcms2: String
    /// libavif as loaded at run time.
    public var libavif: String
    /// libheif as loaded at run time (HEIC input).
    public var libheif: String
    /// giflib as compiled against (it has no call that reports the loaded library's version).
    public var giflib: String
    /// libjxl as loaded at run time (JPEG XL).
    public var libjxl: String
    /// libtiff as loaded at run time.
    public var libtiff: String
}

extension ImageCodecs {
    public static var libraryVersions: CodecLibraryVersions {
        CodecLibraryVersions(
            // jconfig.h writes it as major * 1,000,000 + minor * 1,000 + patch.
            libjpegTurbo: dotted(Int(LIBJPEG_TURBO_VERSION_NUMBER), bases: [1_000_000, 1_000]),
            // libpng 1.6: major * 10,000 + minor * 100 + release (1.6.39 is 10639).
            libpng: dotted(Int(png_access_version_number()), bases: [10_000, 100]),
            // libwebp: 0xMMmmrr, one byte each.
            libwebp: dotted(Int(WebPGetDecoderVersion()), bases: [0x10000, 0x100]),
            lcms2: ColorManagement.libraryVersion,
            libavif: String(cString: avifVersion()),
            libheif: HEIFCodec.libraryVersion,
            giflib: GIFCodec.libraryVersion,
            libjxl: JXLCodec.libraryVersion,
            libtiff: TIFFCodec.libraryVersion
        )
    }

    /// Splits a packed version number into "major.minor.patch", by the place values of major and minor.
    static func dotted(_ packed: Int, bases: [Int]) -> String {
        var rest = packed
        var parts: [Int] = []
        for base in bases {
            parts.append(rest / base)
            rest %= base
        }
        parts.append(rest)
        return parts.map(String.init).joined(separator: ".")
    }
}
