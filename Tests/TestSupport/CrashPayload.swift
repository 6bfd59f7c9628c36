import Foundation
import ThumbCache

/// Self-describing entry bytes, shared by the crash tests and the writer process they kill (Tests/CacheCrashWriter):
/// `TCW1`, generation (8 bytes LE), body length (4 bytes LE), the key's digest (64 ASCII), body.
/// A torn, shortened, or mixed-up entry fails `check`.
public enum CrashPayload {
    public static let headerSize = 4 + 8 + 4 + 64

    public static func make(digest: String, generation: UInt64, bodyLength: Int) -> [UInt8] {
        var bytes: [UInt8] = Array("TCW1".utf8)
        bytes.reserveCapacity(headerSize + bodyLength)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: generation >> UInt64(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: UInt32(bodyLength) >> UInt32(shift))) }
        bytes += Array(digest.utf8)
        var state = (UInt64(digest.prefix(16), radix: 16) ?? 0) ^ (generation &* 0x9E37_79B9_7F4A_7C15)
        var produced = 0
        while produced < bodyLength {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            for shift in stride(from: 0, to: 64, by: 8) where produced < bodyLength {
                bytes.append(UInt8(truncatingIfNeeded: z >> UInt64(shift)))
                produced += 1
            }
        }
        return bytes
    }

    /// The generation `bytes` were made with for the key whose digest is `digest`, or nil if they are not exactly such bytes.
    public static func check(_ bytes: [UInt8], digest: String) -> UInt64? {
        guard bytes.count >= headerSize, Array(bytes[0..<4]) == Array("TCW1".utf8) else { return nil }
        let generation = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[4 + $1]) << UInt64(8 * $1) }
        let length = (0..<4).reduce(0) { $0 | Int(bytes[12 + $1]) << (8 * $1) }
        guard bytes.count == headerSize + length, String(decoding: bytes[16..<80], as: UTF8.self) == digest else { return nil }
        return make(digest: digest, generation: generation, bodyLength: length) == bytes ? generation : nil
    }
}

/// The keys the crash tests use: 24 URLs, three thumbnail variants each, and their originals.
public enum CrashKeys {
    public static let variants = [
        CacheVariant(size: 100, fit: "cover", format: "jpeg", quality: 80),
        CacheVariant(size: 200, fit: "cover", format: "webp", quality: 75),
        CacheVariant(size: 320, fit: "contain", format: "png", quality: 0),
        CacheVariant.original,
    ]

    public static func url(_ i: Int) -> NormalizedURL {
        // A fixed, valid URL: cannot fail.
        try! NormalizedURL("https://img\(i % 4).example.com/products/\(i).jpg")
    }

    public static func key(_ i: Int, _ variant: Int) -> CacheKey {
        CacheKey(url: url(i), variant: variants[variant])
    }

    /// The limits the writer and the checking parent share: small, so eviction never stops.
    public static let limits = DiskCacheLimits(maxBytes: 96 << 10, originalsMaxBytes: 64 << 10,
                                        accessFlushBatch: 8, accessFlushInterval: .milliseconds(50))
}
