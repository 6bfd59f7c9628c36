import CDigest

/// A SHA-256 value as four big-endian words (`w0` holds the first eight bytes): cache keys, file
/// checksums and S3 payload hashes. Computed by the system's libcrypto (`CDigest`), so no copy
/// of BoringSSL is compiled into thumbd.
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    public let w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    public init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// The SHA-256 of `bytes`.
    public init(of bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { Self(raw: $0) }
    }

    /// The SHA-256 of the text's UTF-8.
    public init(of text: String) {
        var text = text
        self = text.withUTF8 { Self(raw: UnsafeRawBufferPointer($0)) }
    }

    private init(raw: UnsafeRawBufferPointer) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { out in
            thumbd_sha256(raw.baseAddress, raw.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        (w0, w1, w2, w3) = (UInt64(bigEndian: words.0), UInt64(bigEndian: words.1),
                            UInt64(bigEndian: words.2), UInt64(bigEndian: words.3))
    }

    /// Parses 64 hex digits (either case); nil for anything else. On the path that loads the
    /// index (two per entry), so it works on the contiguous UTF-8 directly.
    public init?(hex text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> SHA256Digest? {
        guard utf8.count == 64, let base = utf8.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64? {
            guard let high = eight(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                  let low = eight(raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) else { return nil }
            return UInt64(high) << 32 | UInt64(low)
        }
        guard let w0 = word(0), let w1 = word(16), let w2 = word(32), let w3 = word(48) else { return nil }
        return SHA256Digest(w0: w0, w1: w1, w2: w2, w3: w3)
    }

    /// Eight hex digits (as loaded from memory, first digit in the lowest byte) to their 32-bit
    /// value, eight at a time (SWAR); nil if any byte is not 0-9, a-f or A-F.
    @inline(__always)
    private static func eight(_ loaded: UInt64) -> UInt32? {
        let x = UInt64(littleEndian: loaded)
        let ones: UInt64 = 0x0101_0101_0101_0101, high: UInt64 = 0x8080_8080_8080_8080
        guard x & high == 0 else { return nil }  // ASCII only: the sums below cannot carry between bytes
        // For a byte b < 0x80: b + (0x80 - lo) has its top bit set iff b >= lo; b + (0x7F - hi) iff b > hi.
        func inRange(_ v: UInt64, _ lo: UInt64, _ hi: UInt64) -> UInt64 {
            (v &+ (0x80 - lo) &* ones) & ~(v &+ (0x7F - hi) &* ones) & high
        }
        let digit = inRange(x, 0x30, 0x39)
        let letter = inRange(x | 0x2020_2020_2020_2020, 0x61, 0x66)
        guard digit | letter == high else { return nil }
        // '0'-'9' -> low nibble; 'a'-'f' and 'A'-'F' -> low nibble + 9.
        var v = ((x & 0x0F0F_0F0F_0F0F_0F0F) &+ (letter >> 7) &* 9).byteSwapped  // first digit most significant
        v = (v | (v >> 4)) & 0x00FF_00FF_00FF_00FF
        v = (v | (v >> 8)) & 0x0000_FFFF_0000_FFFF
        v = (v | (v >> 16)) & 0x0000_0000_FFFF_FFFF
        return UInt32(truncatingIfNeeded: v)
    }

    /// The 32 bytes, first byte first.
    public var bytes: [UInt8] {
        [w0, w1, w2, w3].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * $0)) } }
    }

    /// 64 lower-case hex digits, in one allocation: a cache key's runs for every request.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            writeHex(into: buffer, at: 0)
            return 64
        }
    }

    /// Writes the 64 hex digits at `offset` (a disk hit builds its file's path in one allocation).
    public func writeHex(into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for (w, word) in [w0, w1, w2, w3].enumerated() {
            for i in 0..<16 {
                buffer[offset + w * 16 + i] = Self.hexDigit(word >> UInt64(60 - 4 * i))
            }
        }
    }

    /// The ASCII hex digit of the low four bits.
    public static func hexDigit(_ value: UInt64) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: value) & 0xF
        return nibble < 10 ? nibble &+ UInt8(ascii: "0") : nibble &+ (UInt8(ascii: "a") &- 10)
    }

    /// A digest's bits are already uniform: one word is enough to feed a hasher (the memory
    /// tier's map is keyed by digests).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(w0)
    }

    /// Equality whose time does not depend on where two digests differ, for secrets.
    public func matchesInConstantTime(_ other: SHA256Digest) -> Bool {
        ((w0 ^ other.w0) | (w1 ^ other.w1) | (w2 ^ other.w2) | (w3 ^ other.w3)) == 0
    }
}

extension SHA256Digest {
    public var description: String { hex }
}

/// In JSON (the cache's API and sidecars): the lower-case hex text.
extension SHA256Digest: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = SHA256Digest(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a SHA-256 in hex: \(text.prefix(80))")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// HMAC-SHA256 (RFC 2104): signed URLs and AWS Signature Version 4.
public enum HMACSHA256 {
    /// The 32-byte code of `message` under `key` (any length).
    public static func code(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { code, initialized in
            key.withUnsafeBytes { key in
                message.withUnsafeBytes { message in
                    thumbd_hmac_sha256(key.baseAddress, key.count, message.baseAddress, message.count, code.baseAddress)
                }
            }
            initialized = 32
        }
    }

    public static func code(for message: String, key: [UInt8]) -> [UInt8] {
        code(for: Array(message.utf8), key: key)
    }
}

/// Bytes as hex digits.
public enum HexText {
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
