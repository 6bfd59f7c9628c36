import Digests

/// An entry's name (the key's SHA-256) or a file's checksum: the digests' own four-word value, so
/// hashing and comparing it costs no allocation and the in-memory map of 100,000 entries stays cheap
/// to build and to probe. Its hex text is the form of file names, the index and the sidecars.
public typealias Hash256 = SHA256Digest

extension SHA256Digest {
    /// The SHA-256 of `bytes`.
    public static func of(_ bytes: [UInt8]) -> SHA256Digest {
        SHA256Digest(of: bytes)
    }

    init?(hex text: Substring) {
        self.init(hex: String(text))
    }

    /// The fan-out folder: the first two hex digits.
    var fanout: String {
        String(unsafeUninitializedCapacity: 2) { buffer in
            (buffer[0], buffer[1]) = (Self.hexDigit(w0 >> 60), Self.hexDigit(w0 >> 56))
            return 2
        }
    }
}

/// For tests of the parser: the canonical (lower-case) form of `text` if it is 64 hex digits.
@_spi(Testing)
public func diskCacheCanonicalHex(_ text: String) -> String? {
    Hash256(hex: text)?.hex
}
