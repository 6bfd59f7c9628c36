import Digests

/// A SHA-256 value held as four words: an entry's name (the key's digest) or a file's checksum.
/// Hashing and comparing it costs no allocation, so the in-memory map of 100,000 entries stays
/// cheap to build and to probe.
public struct Hash256: Hashable, Sendable, CustomStringConvertible {
    var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    init(w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// Parses 64 hex digits (either case); nil for anything else. On the path that loads the
    /// index (two per entry), so it works on the contiguous UTF-8 directly.
    public init?(hex text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    init?(hex text: Substring) {
        self.init(hex: String(text))
    }

    private static func parse(_ utf8: UnsafeBufferPointer<UInt8>) -> Hash256? {
        guard utf8.count == 64, let base = utf8.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64? {
            guard let high = eight(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
                  let low = eight(raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) else { return nil }
            return UInt64(high) << 32 | UInt64(low)
        }
        guard let w0 = word(0), let w1 = word(16), let w2 = word(32), let w3 = word(48) else { return nil }
        return Hash256(w0: w0, w1: w1, w2: w2, w3: w3)
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

    init(digest: SHA256Digest) {
        (w0, w1, w2, w3) = (digest.w0, digest.w1, digest.w2, digest.w3)
    }

    /// The SHA-256 of `bytes`.
    public static func of(_ bytes: [UInt8]) -> Hash256 {
        Hash256(digest: SHA256Digest(of: bytes))
    }

    private var digest: SHA256Digest { SHA256Digest(w0: w0, w1: w1, w2: w2, w3: w3) }

    /// Lower-case hex, the form used in file names, the index and the sidecars.
    public var hex: String { digest.hex }

    /// Writes the 64 hex digits at `offset` (a hit builds its file's path in one allocation).
    func writeHex(into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        digest.writeHex(into: buffer, at: offset)
    }

    /// The fan-out folder: the first two hex digits.
    var fanout: String {
        String(unsafeUninitializedCapacity: 2) { buffer in
            (buffer[0], buffer[1]) = (SHA256Digest.hexDigit(w0 >> 60), SHA256Digest.hexDigit(w0 >> 56))
            return 2
        }
    }

    public var description: String { hex }
}

/// In JSON (the API, the sidecars): the lower-case hex text.
extension Hash256: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Hash256(hex: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a SHA-256 in hex: \(text.prefix(80))")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// For tests of the parser: the canonical (lower-case) form of `text` if it is 64 hex digits.
@_spi(Testing)
public func diskCacheCanonicalHex(_ text: String) -> String? {
    Hash256(hex: text)?.hex
}
