import Digests

/// SHA-256 in hex, for comparing decoded pixels and answers with reference hashes: the product's
/// own digest (the system's libcrypto), checked against published vectors and Python's hashlib in
/// `DigestsTests`.
public enum SHA256 {
    public static func hex(_ message: [UInt8]) -> String {
        SHA256Digest(of: message).hex
    }
}
