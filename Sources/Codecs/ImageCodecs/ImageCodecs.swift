import AVIFCodec
import BMPCodec
import GIFCodec
import JXLCodec
import TIFFCodec
import ColorManagement
import HEIFCodec
import ImageCore
import JPEGCodec
import PNGCodec
import WebPCodec

/// The one door to every codec: the format comes from the bytes, never from a name.
public enum ImageCodecs {
    public static func format(of data: [UInt8]) throws(ImageError) -> ImageFormat {
        switch SniffedFormat.sniff(data) {
        case .supported(let format):
            return format
        case .unsupported(let name):
            throw .unsupported("\(name) images are not supported; thumbd reads \(readable)")
        case .unknown:
            if data.isEmpty { throw .corrupt("the file is empty") }
            throw .unsupported("not a JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP or JPEG XL image (unrecognised signature)")
        }
    }

    static let readable = "JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP and JPEG XL"

    /// Header facts (size, alpha, orientation) without decoding pixels; the size is checked against
    /// `limits` as soon as the header gives it.
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(ImageError) -> ImageInfo {
        let info = switch try format(of: data) {
        case .jpeg: try JPEGCodec.readInfo(data)
        case .png: try PNGCodec.readInfo(data, limits: limits)
        case .webp: try WebPCodec.readInfo(data)
        case .avif: try AVIFCodec.readInfo(data, limits: limits)
        case .heic: try HEIFCodec.readInfo(data, limits: limits)
        case .gif: try GIFCodec.readInfo(data, limits: limits)
        case .bmp: try BMPCodec.readInfo(data, limits: limits)
        case .jxl: try JXLCodec.readInfo(data, limits: limits)
        case .tiff: try TIFFCodec.readInfo(data, limits: limits)
        }
        try limits.check(width: info.width, height: info.height)
        return info
    }

    /// Decodes, possibly at reduced size (see `DecodeScaleHint`), after checking `limits` from the header,
    /// and converts the pixels to sRGB (`decodeToSRGB` also says what the conversion did).
    /// The pixels come back in stored orientation; `info.orientation` says how to stand them up.
    public static func decode(_ data: [UInt8], limits: DecodeLimits = DecodeLimits(),
                              scale: DecodeScaleHint = .fullSize) throws(ImageError) -> DecodedImage {
        try decodeToSRGB(data, limits: limits, scale: scale).image
    }

    /// `decode`, and what became of the file's colour information (converted from a profile, taken
    /// as sRGB, or ignored and why).
    public static func decodeToSRGB(_ data: [UInt8], limits: DecodeLimits = DecodeLimits(),
                                    scale: DecodeScaleHint = .fullSize) throws(ImageError) -> (image: DecodedImage, color: ColorOutcome) {
        var image = try decodeAsStored(data, limits: limits, scale: scale)
        let outcome = ColorManagement.convertToSRGB(&image)
        return (image, outcome)
    }

    /// Whether decoding would change the samples' colours (a profile other than sRGB, PNG gamma
    /// other than sRGB's): such a file cannot be handed on without its metadata. Reads headers only.
    public static func needsColorConversion(_ data: [UInt8]) throws(ImageError) -> Bool {
        let color: EmbeddedColor = switch try format(of: data) {
        case .jpeg: try JPEGCodec.embeddedColor(in: data)
        case .png: try PNGCodec.embeddedColor(in: data)
        case .webp: try WebPCodec.embeddedColor(in: data)
        case .avif: AVIFCodec.iccProfile(in: data).map(EmbeddedColor.iccProfile) ?? .unspecified
        case .heic: try HEIFCodec.embeddedColor(in: data)
        case .gif: try GIFCodec.embeddedColor(in: data)
        case .bmp: try BMPCodec.embeddedColor(in: data)
        case .jxl: try JXLCodec.embeddedColor(in: data)
        case .tiff: try TIFFCodec.embeddedColor(in: data)
        }
        return ColorManagement.changesColors(color)
    }

    /// The scale a decode of `format` delivers for `hint`, where the format alone decides it: JPEG's
    /// M/8 and the formats decoded at full size whatever the hint. nil for PNG and WebP, whose
    /// reduction depends on the file (interlacing, libwebp's rounding). Two hints with the same
    /// answer give the same pixels.
    public static func decodeScale(of format: ImageFormat, for hint: DecodeScaleHint) -> Double? {
        switch format {
        case .jpeg: JPEGCodec.decodeScale(for: hint)
        case .avif, .heic, .gif, .bmp, .jxl, .tiff: 1
        case .png, .webp: nil
        }
    }

    /// The samples as the file stores them, with what the file says of their colours; a CMYK JPEG
    /// comes back as CMYK. `blockMeans` asks for `DecodedImage.blockMeans` where the format has
    /// them (JPEG). `window`, in the pixels of the scale `decodeScale(of:for:)` gives, asks for that
    /// part only where the format can decode a part (JPEG); `DecodedImage.window` says which it gave.
    public static func decodeAsStored(_ data: [UInt8], limits: DecodeLimits = DecodeLimits(),
                                      scale: DecodeScaleHint = .fullSize, blockMeans: Bool = false,
                                      window: DecodeWindow? = nil) throws(ImageError) -> DecodedImage {
        switch try format(of: data) {
        case .jpeg: try JPEGCodec.decode(data, limits: limits, scale: scale, keepingCMYK: true, blockMeans: blockMeans, window: window)
        case .png: try PNGCodec.decode(data, limits: limits, scale: scale)
        case .webp: try WebPCodec.decode(data, limits: limits, scale: scale)
        case .avif: try AVIFCodec.decode(data, limits: limits, scale: scale)
        case .heic: try HEIFCodec.decode(data, limits: limits, scale: scale)
        case .gif: try GIFCodec.decode(data, limits: limits, scale: scale)
        case .bmp: try BMPCodec.decode(data, limits: limits, scale: scale)
        case .jxl: try JXLCodec.decode(data, limits: limits, scale: scale)
        case .tiff: try TIFFCodec.decode(data, limits: limits, scale: scale)
        }
    }

    /// The metadata the file carries beside its pixels; nil for the formats other than JPEG and WebP, whose metadata is
    /// not inspected (nothing hands one on unchanged: a HEIC is always re-encoded).
    public static func metadata(in data: [UInt8]) throws(ImageError) -> EmbeddedMetadata? {
        switch try format(of: data) {
        case .jpeg: try JPEGCodec.metadata(in: data)
        case .webp: try WebPCodec.metadata(in: data)
        default: nil
        }
    }

    /// The JPEG without its metadata, losslessly (see `JPEGCodec.removingMetadata`).
    public static func removingJPEGMetadata(_ data: [UInt8]) throws(ImageError) -> [UInt8] {
        try JPEGCodec.removingMetadata(data)
    }

    /// Writes JPEG, PNG, WebP, AVIF or JPEG XL (`EncodeSettings` has no HEIC, GIF, TIFF or BMP: they are read only).
    public static func encode(_ image: PixelBuffer, _ settings: EncodeSettings) throws(ImageError) -> [UInt8] {
        switch settings {
        case .jpeg(let quality, let progressive):
            try JPEGCodec.encode(image, quality: quality, progressive: progressive)
        case .png:
            try PNGCodec.encode(image)
        case .webp(let quality):
            try WebPCodec.encode(image, quality: quality)
        case .webpLossless:
            try WebPCodec.encode(image, quality: nil)
        case .avif(let quality, let speed):
            try AVIFCodec.encode(image, quality: EncodeSettings.libavifQuality(matchingJPEG: quality), speed: speed)
        case .jxl(let quality, let effort):
            try JXLCodec.encode(image, quality: quality, effort: effort)
        }
    }
}
