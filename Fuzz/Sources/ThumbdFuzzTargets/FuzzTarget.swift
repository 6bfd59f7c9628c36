#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The parsers thumbd runs on strangers' bytes, one fuzz target each. Every target takes any bytes
/// and must neither crash nor trip a sanitizer; a refusal (a thrown error) is a good outcome.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case thumbnail, jpeg, png, webp, avif, heic, gif, tiff, bmp, jxl, exif, multipart, query, page, config

    /// Names the target for child processes libFuzzer starts (fork mode, crash minimisation), which
    /// get libFuzzer's own arguments only.
    public static let environmentVariable = "THUMBD_FUZZ_TARGET"

    /// The target `environmentVariable` names, read once, at the first input (after `main` has set it).
    public static let active: FuzzTarget? = getenv(environmentVariable).flatMap { FuzzTarget(rawValue: String(cString: $0)) }

    public var summary: String {
        switch self {
        case .thumbnail: "bytes to thumbnail: sniff, header, limits, decode, colour, orient, resize, ThumbHash, encode"
        case .jpeg: "JPEG: the marker walk (info, metadata, ICC, metadata removal) and libjpeg's decode"
        case .png: "PNG through the C bridge: header, colour chunks, full and row-reduced decodes"
        case .webp: "WebP: the RIFF container parser, header, metadata and libwebp's decode"
        case .avif: "AVIF: ftyp sniffing, libavif's parse, ICC lookup and decode"
        case .heic: "HEIC: ftyp sniffing, the box and grid-canvas checks, libheif's parse, colour lookup and decode"
        case .gif: "GIF: the screen check, giflib's record walk to the first frame, its limits, LZW decode and compositing"
        case .tiff: "TIFF: the header and directory checks, libtiff's read from memory, strips and tiles, samples to RGBA or CMYK"
        case .bmp: "BMP: thumbd's own reader: every header kind, masks, palettes, RLE4 and RLE8, embedded profiles"
        case .jxl: "JPEG XL: the signature and container checks, libjxl's header, colour encoding and first-frame decode"
        case .exif: "EXIF orientation: the TIFF reader alone and inside JPEG APP1, WebP EXIF and PNG eXIf"
        case .multipart: "upload form: Content-Type line, then a multipart/form-data body fed in pieces"
        case .query: "thumbnail query (and Accept after a newline): parameters, URL normaliser, cache keys"
        case .page: "prefetch: a product-list page as JSON, its items and next page URL"
        case .config: "configuration: a YAML file read with every setting's parser"
        }
    }

    /// Runs one input. Errors the code throws are expected; only crashes and broken promises (thrown
    /// as `FuzzFinding`) count.
    public func run(_ data: [UInt8]) throws(FuzzFinding) {
        switch self {
        case .thumbnail: try ThumbnailFuzz.run(data)
        case .jpeg: try JPEGFuzz.run(data)
        case .png: try PNGFuzz.run(data)
        case .webp: try WebPFuzz.run(data)
        case .avif: try AVIFFuzz.run(data)
        case .heic: try HEICFuzz.run(data)
        case .gif: try GIFFuzz.run(data)
        case .tiff: try TIFFFuzz.run(data)
        case .bmp: try BMPFuzz.run(data)
        case .jxl: try JXLFuzz.run(data)
        case .exif: try ExifFuzz.run(data)
        case .multipart: try MultipartFuzz.run(data)
        case .query: try QueryFuzz.run(data)
        case .page: try ProductPageFuzz.run(data)
        case .config: try ConfigFuzz.run(data)
        }
    }
}
