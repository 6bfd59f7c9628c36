/// The image formats thumbd reads and writes, told apart by their first bytes only:
/// file names and Content-Type headers lie, magic bytes do not.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case webp
    case avif

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .avif: "image/avif"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
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
        let head = Array(data.prefix(16))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .supported(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .supported(.png) }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .supported(.webp) }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .unsupported("GIF") }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .unsupported("TIFF") }
        if starts(Array("BM".utf8)) { return .unsupported("BMP") }
        if starts(Array("ftyp".utf8), at: 4) {
            return isoBrands(data).contains { $0 == "avif" || $0 == "avis" } ? .supported(.avif) : .unsupported("HEIF (ISO media)")
        }
        if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .unsupported("JPEG XL") }
        if starts([0x00, 0x00, 0x01, 0x00]) { return .unsupported("ICO") }
        return .unknown
    }

    /// The major and compatible brands of an ISO-BMFF `ftyp` box at the start of `data` (at most
    /// 64 of them): AVIF is told from HEIC by a brand, which may sit past the first 16 bytes.
    static func isoBrands<Bytes: Collection>(_ data: Bytes) -> [String] where Bytes.Element == UInt8 {
        let head = Array(data.prefix(16 + 4 * 66))
        guard head.count >= 16 else { return [] }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        // Size 1: a 64-bit size follows the type; size 0: the box runs to the end of the file.
        let header = size == 1 ? 16 : 8
        guard head.count >= header + 8 else { return [] }
        var boxSize = size
        if size == 1 { boxSize = head[8..<16].reduce(0) { $0 << 8 | Int($1) } }
        let end = size == 0 ? head.count : min(head.count, max(header + 8, boxSize))
        func brand(_ at: Int) -> String { String(decoding: head[at..<at + 4], as: UTF8.self) }
        var brands = [brand(header)]
        var at = header + 8
        while at + 4 <= end {
            brands.append(brand(at))
            at += 4
        }
        return brands
    }
}
