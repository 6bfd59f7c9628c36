/// The image formats thumbd reads and writes, told apart by their first bytes only:
/// file names and Content-Type headers lie, magic bytes do not.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case jpeg
    case png
    case webp

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
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
        if starts(Array("ftyp".utf8), at: 4) { return .unsupported("HEIF/AVIF (ISO media)") }
        if starts([0xFF, 0x0A]) || starts([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .unsupported("JPEG XL") }
        if starts([0x00, 0x00, 0x01, 0x00]) { return .unsupported("ICO") }
        return .unknown
    }
}
