import ImageCodecs
import ImageCore

/// Encoding under a byte cap (`max_bytes`): the asked quality when it fits, else the highest
/// quality between it and `floorQuality` that does. The box is the client's layout, so the
/// dimensions never shrink: when the floor does not fit either, the cap is refused as
/// `budget_unreachable`, with the smallest size reached, and nothing over the cap is ever returned.
public enum ByteCap {
    /// Below this JPEG-scale quality, blocking shows on a product photo at thumbnail size.
    public static let floorQuality = 30
    /// Quality searches stop after this many encodes: a bisection from the floor to 100 needs 7.
    static let maxTries = 7

    public struct Encoded: Sendable {
        public var bytes: [UInt8]
        public var settings: EncodeSettings
    }

    public static func encode(_ pixels: PixelBuffer, _ settings: EncodeSettings, maxBytes: Int?) throws(ImageError) -> Encoded {
        let first = try ImageCodecs.encode(pixels, settings)
        guard let maxBytes, first.count > maxBytes else { return Encoded(bytes: first, settings: settings) }
        guard let asked = settings.quality, asked > floorQuality else {
            throw unreachable(first.count, maxBytes, settings, note: settings.quality == nil ? "its format is lossless" : "at quality \(settings.quality!)")
        }
        let floorSettings = settings.with(quality: floorQuality)
        let atFloor = try ImageCodecs.encode(pixels, floorSettings)
        guard atFloor.count <= maxBytes else {
            throw unreachable(atFloor.count, maxBytes, settings, note: "at quality \(floorQuality), the lowest it tries")
        }
        var best = Encoded(bytes: atFloor, settings: floorSettings)
        var (fits, overflows) = (floorQuality, asked)
        for _ in 0..<maxTries where overflows - fits > 1 {
            let quality = (fits + overflows) / 2
            let trial = settings.with(quality: quality)
            let bytes = try ImageCodecs.encode(pixels, trial)
            if bytes.count <= maxBytes { (fits, best) = (quality, Encoded(bytes: bytes, settings: trial)) } else { overflows = quality }
        }
        return best
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
        case .jpeg(let quality, _), .webp(let quality), .avif(let quality, _): quality
        default: nil
        }
    }

    /// The same encoding at another quality (lossless ones as they are).
    func with(quality: Int) -> EncodeSettings {
        switch self {
        case .jpeg(_, let progressive): .jpeg(quality: quality, progressive: progressive)
        case .webp: .webp(quality: quality)
        case .avif(_, let speed): .avif(quality: quality, speed: speed)
        default: self
        }
    }
}
