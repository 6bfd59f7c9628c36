import CDigest

/// A SHA-256 value as four big-endian words (`w0` holds the first eight bytes): cache keys, file
/// checksums and S3 payload hashes. Computed by the system's libcrypto (`CDigest`), so no copy
/// of BoringSSL is compiled into thumbd.
public struct SHA256Digest: Hashable, Sendable {
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
