import Foundation
import ThumbCache

/// Helpers shared by the disk, two-tier and crash tests.
enum DiskTest {
    /// A fresh directory under the system's temporary folder; remove it with `cleanUp`.
    static func makeDirectory(_ label: String = "disk") -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-\(label)-test-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func cleanUp(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    static let thumb = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)

    static func key(_ i: Int, variant: CacheVariant = thumb, host: String = "shop.example") -> CacheKey {
        CacheKey(url: try! NormalizedURL("https://\(host)/img/\(i).jpg"), variant: variant)
    }

    /// Deterministic bytes that differ by seed.
    static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// What is really under objects/: entry files (and their bytes) and sidecars.
    struct Files: Equatable {
        var entries = 0
        var bytes = 0
        var sidecars = 0
        var others: [String] = []
    }

    static func files(in directory: URL) -> Files {
        var result = Files()
        let objects = directory.appendingPathComponent("objects")
        let fanouts = (try? FileManager.default.contentsOfDirectory(atPath: objects.path)) ?? []
        for fanout in fanouts {
            let folder = objects.appendingPathComponent(fanout)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                let path = folder.appendingPathComponent(name).path
                if name.hasSuffix(".meta") {
                    result.sidecars += 1
                } else if name.count == 64 {
                    result.entries += 1
                    result.bytes += (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                } else {
                    result.others.append(path)
                }
            }
        }
        return result
    }

    static func temporaryFiles(in directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path)) ?? []
    }

    static func dataPath(_ directory: URL, _ key: CacheKey) -> String {
        directory.appendingPathComponent("objects/\(key.digest.prefix(2))/\(key.digest)").path
    }

    static func limits(_ maxBytes: Int, originals: Int = 1 << 20, fsync: FsyncPolicy = .none) -> DiskCacheLimits {
        DiskCacheLimits(maxBytes: maxBytes, originalsMaxBytes: originals, fsync: fsync)
    }
}

/// Collects warnings from the cache.
final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var sink: CacheWarningSink { { [self] line in lock.withLock { lines.append(line) } } }
    var all: [String] { lock.withLock { lines } }
    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}

/// A clock the test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)

    var clock: CacheClock { CacheClock { [self] in lock.withLock { current } } }
    func advance(_ seconds: Double) { lock.withLock { current += seconds } }
}
