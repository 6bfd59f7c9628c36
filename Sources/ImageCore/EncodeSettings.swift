/// How to write an image. Metadata is never written: thumbnails and prepared uploads carry pixels only.
public enum EncodeSettings: Sendable, Equatable {
    /// Baseline or progressive JPEG with 4:2:0 chroma subsampling.
    case jpeg(quality: Int, progressive: Bool = false)
    case png
    case webp(quality: Int)
    case webpLossless

    public var format: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp, .webpLossless: .webp
        }
    }

    public static let defaultQuality = 82
    public static let qualityRange = 1...100
}
