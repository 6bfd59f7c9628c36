import ImageCodecs
import ImageCore

/// Encoding under a byte cap (`max_bytes`): the asked quality when it fits, else the highest
/// quality down to `floorQuality` that does (`QualitySearch`, the upload budget's search). The box
/// is the client's layout, so the dimensions never shrink: when the floor does not fit either, the
/// cap is refused as `budget_unreachable`, with the smallest size reached, and nothing over the
/// cap is ever returned.
public enum ByteCap {
    /// Below this JPEG-scale quality, blocking shows on a product photo at thumbnail size.
    public static let floorQuality = 30

    public struct Encoded: Sendable {
        public var bytes: [UInt8]
        public var settings: EncodeSettings
    }

    public static func encode(_ pixels: PixelBuffer, _ settings: EncodeSettings, maxBytes: Int?) throws(ImageError) -> Encoded {
        guard let maxBytes else { return Encoded(bytes: try ImageCodecs.encode(pixels, settings), settings: settings) }
        guard let asked = settings.quality else {
            let bytes = try ImageCodecs.encode(pixels, settings)
            guard bytes.count <= maxBytes else { throw unreachable(bytes.count, maxBytes, settings, note: "its format is lossless") }
            return Encoded(bytes: bytes, settings: settings)
        }
        var smallest = Int.max
        let floor = min(floorQuality, asked)
        let found = try QualitySearch.highestFitting(budget: maxBytes, ceiling: asked, floor: floor) { (quality) throws(ImageError) in
            let bytes = try ImageCodecs.encode(pixels, settings.with(quality: quality))
            smallest = min(smallest, bytes.count)
            return bytes
        }
        guard let found else {
            throw unreachable(smallest, maxBytes, settings, note: "at quality \(floor), the lowest it tries")
        }
        return Encoded(bytes: found.bytes, settings: settings.with(quality: found.quality))
    }

    private static func unreachable(_ size: Int, _ maxBytes: Int, _ settings: EncodeSettings, note: String) -> ImageError {
        ImageError(.budgetUnreachable, "the \(settings.format.rawValue.uppercased()) thumbnail is \(size) bytes \(note), over max_bytes=\(maxBytes): "
                   + "ask for a smaller size, a lossy format or a larger max_bytes")
    }
}

extension EncodeSettings {
    /// The quality a lossy encoding is written at; nil for lossless ones.
    public var quality: Int? {
        switch self {
        case .jpeg(let quality, _), .webp(let quality), .avif(let quality, _), .jxl(let quality, _): quality
        default: nil
        }
    }

    /// The same encoding at another quality (lossless ones as they are).
    func with(quality: Int) -> EncodeSettings {
        switch self {
        case .jpeg(_, let progressive): .jpeg(quality: quality, progressive: progressive)
        case .webp: .webp(quality: quality)
        case .avif(_, let speed): .avif(quality: quality, speed: speed)
        case .jxl(_, let effort): .jxl(quality: quality, effort: effort)
        default: self
        }
    }
}
