/// The image formats thumbd reads and writes, told apart by their first bytes only:
/// file names and Content-Type headers lie, magic bytes do not.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case webp
    case avif
    /// HEVC in HEIF (iPhone photos): read only, never written (`isWritable`).
    case heic
    /// Read only: the first frame of an animation.
    case gif
    /// Read only: the first page.
    case tiff
    /// Read only (Windows and OS/2 bitmaps).
    case bmp
    /// JPEG XL (recent iPhones, Safari): read, and written when asked for by name.
    case jxl

    /// Formats thumbd encodes. HEIC is only read (an HEVC encoder is a patent licence and a slow
    /// encode for a format browsers other than Safari do not show); GIF, TIFF and BMP are inputs no
    /// thumbnail should be written in.
    public var isWritable: Bool { Self.encoded.contains(self) }

    private static let encoded: Set<ImageFormat> = [.jpeg, .png, .webp, .avif, .jxl]

    /// The formats thumbd encodes, in the order they are offered.
    public static let writable: [ImageFormat] = allCases.filter(\.isWritable)

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .gif: "image/gif"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .jxl: "image/jxl"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
        case .heic: "heic"
        case .gif: "gif"
        case .tiff: "tif"
        case .bmp: "bmp"
        case .jxl: "jxl"
        }
    }
}

/// What the first bytes of a file say it is.
public enum SniffedFormat: Equatable, Sendable {
    case supported(ImageFormat)
    /// A real image format that thumbd does not decode (named, for a helpful message).
    case unsupported(String)
    case unknown

    public static func sniff<Bytes: Collection>(_ data: Bytes) -> SniffedFormat where Bytes.Element == UInt8 {
        let head = Array(data.prefix(18))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .supported(.webp) }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .supported(.gif) }
        // Classic TIFF and BigTIFF, either byte order.
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) || starts([0x49, 0x49, 0x2B, 0x00])
            || starts([0x4D, 0x4D, 0x00, 0x2B]) { return .supported(.tiff) }
        if starts(Array("BM".utf8)) { return isBMP(head) ? .supported(.bmp) : .unsupported("BMP") }
        if starts(Array("ftyp".utf8), at: 4) {
            if isAVIF(data) { return .supported(.avif) }
            if isHEIC(data) { return .supported(.heic) }
            return .unsupported("ISO media (MP4, QuickTime or a HEIF kind other than AVIF and HEIC)")
        }
        if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .supported(.jxl) }
        if starts([0x00, 0x00, 0x01, 0x00]) { return .unsupported("ICO") }
        return .unknown
    }

    /// "BM" alone is two letters any text may start with: a bitmap also names one of the DIB header
    /// sizes Windows and OS/2 wrote (12, 16 to 64, 108, 124) at offset 14. BMPCodec checks the rest.
    static func isBMP(_ head: [UInt8]) -> Bool {
        guard head.count >= 18 else { return head.count > 2 }
        let size = UInt32(head[14]) | UInt32(head[15]) << 8 | UInt32(head[16]) << 16 | UInt32(head[17]) << 24
        return size == 12 || (16...64).contains(size) || size == 108 || size == 124
    }

    /// Whether `data` starts with an ISO-BMFF `ftyp` box whose major or compatible brands include
    /// `avif` or `avis` (AVIF is told from HEIC by a brand, which may sit past the first 16 bytes).
    public static func isAVIF<Bytes: Collection>(_ data: Bytes) -> Bool where Bytes.Element == UInt8 {
        ftypBrands(data).contains { avifBrands.contains($0) }
    }

    /// Whether `data` is HEIF that is not AVIF: a brand of HEVC images or sequences (`heic`, `heix`,
    /// `heim`, `heis`, `hevc`, `hevx`), or only the generic HEIF brands (`mif1`, `msf1`) with no
    /// `avif`/`avis` beside them, which in practice is HEVC (iPhones write `mif1` + `heic`; libheif
    /// reads whatever codec the items turn out to use). AVIF brands win: such files go to libavif.
    public static func isHEIC<Bytes: Collection>(_ data: Bytes) -> Bool where Bytes.Element == UInt8 {
        let brands = ftypBrands(data)
        guard !brands.contains(where: avifBrands.contains) else { return false }
        return brands.contains { heicBrands.contains($0) || genericHEIFBrands.contains($0) }
    }

    static let avifBrands: Set<String> = ["avif", "avis"]
    static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    static let genericHEIFBrands: Set<String> = ["mif1", "msf1"]

    /// The major and compatible brands of the `ftyp` box `data` starts with (empty when it does not).
    /// Reads only the ftyp box, as much of it as `data` holds; handles 64-bit and to-the-end sizes.
    static func ftypBrands<Bytes: Collection>(_ data: Bytes) -> [String] where Bytes.Element == UInt8 {
        let head = Array(data.prefix(16 + 4 * 66))
        guard head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) else { return [] }
        func number(_ range: Range<Int>) -> UInt64 { head[range].reduce(0) { $0 << 8 | UInt64($1) } }
        var headerSize = 8
        var end = head.count
        switch number(0..<4) {
        case 0: break  // runs to the end of the file
        case 1:
            guard head.count >= 20 else { return [] }
            headerSize = 16
            let large = number(8..<16)
            guard large >= 16 + 8 else { return [] }
            end = large < UInt64(head.count) ? Int(large) : head.count
        case let size where size >= 16:
            end = min(Int(size), head.count)
        default:
            return []
        }
        guard end >= headerSize + 4 else { return [] }
        func brand(_ at: Int) -> String { String(decoding: head[at..<at + 4], as: UTF8.self) }
        return [brand(headerSize)] + stride(from: headerSize + 8, through: end - 4, by: 4).map(brand)
    }
}
