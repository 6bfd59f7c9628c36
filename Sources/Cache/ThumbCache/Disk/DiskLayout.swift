import Digests
import Foundation

/// Where everything lives inside a cache directory:
///
/// ```
/// DIR/
///   lock                  the owner's lock file (flock); holds its pid as text
///   clean-shutdown        present only while no owner runs and the last one closed cleanly
///   index.sqlite          the index (SQLite, WAL mode; -wal and -shm beside it while open)
///   objects/ab/<digest>       an entry's bytes, exactly as stored (no header)
///   objects/ab/<digest>.meta  an entry's metadata as JSON, written by thumbd before index format 3
///                         (read when repairing; removed with its entry)
///   tmp/                  files being written; renamed into objects/ only once complete
/// ```
/// `<digest>` is the key's SHA-256 (64 hex digits); `ab` its first two digits.
/// CacheFiles SPI: the cache benchmarks (Benchmarks/, a package of its own) and the crash tests lay out, count and remove files as the cache does.
@_spi(CacheFiles) public struct DiskLayout: Sendable {
    let root: String
    /// `root/objects/` as bytes, the start of every entry's path.
    private let objectsPrefix: [UInt8]

    @_spi(CacheFiles) public init(directory: URL) {
        var path = directory.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        root = path
        objectsPrefix = Array((path + "/objects/").utf8)
    }

    var indexPath: String { root + "/index.sqlite" }
    var lockPath: String { root + "/lock" }
    @_spi(CacheFiles) public var cleanMarkerPath: String { root + "/clean-shutdown" }
    /// The kernel's boot id when the owner opened the cache: tells a crash of the owner from a
    /// crash of the machine.
    @_spi(CacheFiles) public var ownerBootPath: String { root + "/owner-boot" }
    @_spi(CacheFiles) public var objectsPath: String { root + "/objects" }
    var tmpPath: String { root + "/tmp" }

    @_spi(CacheFiles) public func fanoutPath(_ fanout: String) -> String { objectsPath + "/" + fanout }
    func relativeDataPath(_ id: Hash256) -> String { "objects/\(id.fanout)/\(id.hex)" }

    /// `root/objects/ab/<digest>`, made in one allocation: a disk hit names its file every time.
    func dataPath(_ id: Hash256) -> String {
        objectsPrefix.withUnsafeBufferPointer { head in
            String(unsafeUninitializedCapacity: head.count + 3 + 64) { buffer in
                _ = buffer.initialize(fromContentsOf: head)
                buffer[head.count] = SHA256Digest.hexDigit(id.w0 >> 60)
                buffer[head.count + 1] = SHA256Digest.hexDigit(id.w0 >> 56)
                buffer[head.count + 2] = UInt8(ascii: "/")
                id.writeHex(into: buffer, at: head.count + 3)
                return head.count + 3 + 64
            }
        }
    }
    func sidecarPath(_ id: Hash256) -> String { dataPath(id) + Self.sidecarSuffix }

    @_spi(CacheFiles) public static let sidecarSuffix = ".meta"
}
