import ChildProcess
import Foundation
import Testing
import TestSupport
import ThumbCache

/// `thumbd cache …` against a real cache directory filled through the library.
struct CacheCommandTests {
    static let variant200 = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)
    static let variant64 = CacheVariant(size: 64, fit: "cover", format: "webp", quality: 80)

    /// A cache with three entries of two URLs on two hosts; returns its directory.
    func makeCache() throws -> URL {
        let dir = try CLI.temporaryDirectory().appendingPathComponent("cache")
        let cache = try DiskCache.open(at: dir, mode: .owner)
        defer { cache.close() }
        try cache.store(CacheKey(url: "https://img.shop.example/p/1.jpg", variant: Self.variant200), Self.bytes(1, 5000),
                        validators: CacheValidators(etag: "\"abc\"", lastModified: nil))
        try cache.store(CacheKey(url: "https://img.shop.example/p/1.jpg", variant: Self.variant64), Self.bytes(2, 900))
        try cache.store(CacheKey(url: "http://other.example:8080/a.png?x=1", variant: Self.variant200), Self.bytes(3, 20000))
        return dir
    }

    static func bytes(_ seed: UInt8, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    /// flock belongs to the open file description, and a child that another test spawns at that
    /// moment holds a copy of our descriptors until its exec: right after `close()`, the lock can
    /// still be held for a few milliseconds. Only a close-then-reopen in one process (as here) sees it.
    static func reopenAsOwner(_ dir: URL) throws -> DiskCache {
        for _ in 0..<50 {
            if let cache = try? DiskCache.open(at: dir, mode: .owner) { return cache }
            usleep(20_000)
        }
        return try DiskCache.open(at: dir, mode: .owner)
    }

    func json(_ result: ChildProcessResult) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout))
    }

    @Test func pathPrintsAFileWhoseBytesAreTheThumbnail() throws {
        let dir = try makeCache()
        let result = try CLI.run(["cache", "path", "HTTPS://IMG.shop.example:443/p/1.jpg", "--size", "200", "--cache-dir", dir.path])
        #expect(result.status == 0, "\(result.stderrText)")
        let path = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix("/") && !path.contains("shop.example"), "a path made from a hash, not the URL: \(path)")
        #expect(try TestPaths.bytes(URL(fileURLWithPath: path)) == Self.bytes(1, 5000))

        let missing = try CLI.run(["cache", "path", "https://img.shop.example/p/1.jpg", "--size", "300", "--cache-dir", dir.path])
        #expect(missing.status == 1 && missing.stdout.isEmpty)
    }

    /// One photo cached centred, smart, at a focal point and trimmed: --gravity and --trim pick one.
    @Test func pathFiltersByGravityAndTrim() throws {
        let dir = try CLI.temporaryDirectory().appendingPathComponent("cache")
        let url = "https://img.shop.example/p/2.jpg"
        let gravities = [("center", false, UInt8(1)), ("smart", false, 2), ("focus=0.250,0.600", false, 3), ("smart", true, 4)]
        do {
            let cache = try DiskCache.open(at: dir, mode: .owner)
            defer { cache.close() }
            for (gravity, trim, seed) in gravities {
                let variant = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82, gravity: gravity, trim: trim)
                try cache.store(CacheKey(url: url, variant: variant), Self.bytes(seed, 700))
            }
        }
        func paths(_ filters: [String]) throws -> [String] {
            let result = try CLI.run(["cache", "path", url, "--cache-dir", dir.path] + filters)
            return result.stdoutText.split(separator: "\n").map(String.init)
        }
        func bytes(_ path: String) throws -> [UInt8] { try TestPaths.bytes(URL(fileURLWithPath: path)) }
        #expect(try paths([]).count == 4)
        let centre = try paths(["--gravity", "center"])
        #expect(centre.count == 1)
        #expect(try centre.map(bytes) == [Self.bytes(1, 700)])
        let smart = try paths(["--gravity", "smart", "--no-trim"])
        #expect(try smart.map(bytes) == [Self.bytes(2, 700)])
        let trimmed = try paths(["--trim"])
        #expect(try trimmed.map(bytes) == [Self.bytes(4, 700)])
        let focus = try paths(["--gravity", "focus"])
        #expect(try focus.map(bytes) == [Self.bytes(3, 700)])
        #expect(try paths(["--gravity", "focus=0.250,0.600"]) == focus)
        #expect(try paths(["--gravity", "focus=0.25,0.6"]) == focus)
        let none = try CLI.run(["cache", "path", url, "--gravity", "focus=0.5,0.5", "--cache-dir", dir.path])
        #expect(none.status == 1 && none.stdout.isEmpty)
        let unknown = try CLI.run(["cache", "path", url, "--gravity", "north", "--cache-dir", dir.path])
        #expect(unknown.status == 2 && unknown.stderrText.contains("--gravity"), "\(unknown.status) \(unknown.stderrText)")
    }

    /// --size reads N or WxH as the API's `size` does: 300 is 300x300, 300x400 its own box, and a
    /// size, fit or format the API would refuse is a usage error, not a filter that matches nothing.
    @Test func pathFiltersBySizeAsTheAPIReadsIt() throws {
        let dir = try CLI.temporaryDirectory().appendingPathComponent("cache")
        let url = "https://img.shop.example/p/3.jpg"
        do {
            let cache = try DiskCache.open(at: dir, mode: .owner)
            defer { cache.close() }
            for (width, height, seed) in [(300, 300, UInt8(1)), (300, 400, 2)] {
                let variant = CacheVariant(size: width, height: height, fit: "cover", format: "jpeg", quality: 82, gravity: "center", trim: false)
                try cache.store(CacheKey(url: url, variant: variant), Self.bytes(seed, 700))
            }
        }
        func run(_ filters: [String]) throws -> ChildProcessResult {
            try CLI.run(["cache", "path", url, "--cache-dir", dir.path] + filters)
        }
        func bytes(_ result: ChildProcessResult) throws -> [[UInt8]] {
            try result.stdoutText.split(separator: "\n").map { try TestPaths.bytes(URL(fileURLWithPath: String($0))) }
        }
        #expect(try bytes(run(["--size", "300"])) == [Self.bytes(1, 700)])
        #expect(try bytes(run(["--size", "300x400"])) == [Self.bytes(2, 700)])
        #expect(try bytes(run(["--size", "300x400", "--fit", "cover"])) == [Self.bytes(2, 700)])
        #expect(try run(["--size", "400x300"]).status == 1)
        #expect(try bytes(run(["--size", "300", "--format", "jpg"])) == [Self.bytes(1, 700)])
        #expect(try run(["--format", "png"]).status == 1)
        for (filters, named) in [(["--size", "0x400"], "--size"), (["--size", "300x"], "--size"), (["--size", "300X400"], "--size"),
                                  (["--fit", "zzz"], "--fit"), (["--format", "gif"], "--format")] {
            let refused = try run(filters)
            #expect(refused.status == 2 && refused.stderrText.contains("Error: \(named)"), "\(filters): \(refused.stderrText)")
            #expect(refused.stderrText.contains("Usage: thumbd cache path"), "\(refused.stderrText)")
        }
    }

    /// A presigned URL's entry is keyed without its signature (`sources.unkeyed_query`): path, show
    /// and evict find it from the URL with any signature, as a request would.
    @Test func presignedURLsFindTheirEntry() throws {
        let dir = try CLI.temporaryDirectory().appendingPathComponent("cache")
        let signed = { (signature: String) in
            "https://bucket.s3.example/p/9.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=600&X-Amz-Signature=\(signature)"
        }
        let key = try #require(UnkeyedQuery.defaults.keyed(try NormalizedURL(signed("aaaa"))))
        do {
            let cache = try DiskCache.open(at: dir, mode: .owner)
            defer { cache.close() }
            try cache.store(CacheKey(url: key, variant: Self.variant200), Self.bytes(7, 1200))
        }
        let path = try CLI.run(["cache", "path", signed("bbbb"), "--cache-dir", dir.path])
        #expect(path.status == 0, "\(path.stderrText)")
        let file = path.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try TestPaths.bytes(URL(fileURLWithPath: file)) == Self.bytes(7, 1200))
        let shown = try #require(try json(CLI.run(["cache", "show", signed("cccc"), "--json", "--cache-dir", dir.path])) as? [[String: Any]])
        #expect(shown.count == 1)
        let unsigned = try CLI.run(["cache", "path", "https://bucket.s3.example/p/9.jpg", "--cache-dir", dir.path])
        #expect(unsigned.status == 1, "the unsigned URL names another entry")
        let evict = try CLI.run(["cache", "evict", signed("dddd"), "--cache-dir", dir.path])
        #expect(evict.status == 0, "\(evict.stderrText)")
        #expect(try CLI.run(["cache", "path", signed("bbbb"), "--cache-dir", dir.path]).status == 1, "evicted")
    }

    @Test func everyCommandSpeaksJSON() throws {
        let dir = try makeCache()
        let stats = try #require(try json(CLI.run(["cache", "stats", "--json", "--cache-dir", dir.path])) as? [String: Any])
        let disk = try #require(stats["disk"] as? [String: Any])
        let thumbnails = try #require(disk["thumbnails"] as? [String: Any])
        #expect((thumbnails["entries"] as? NSNumber)?.intValue == 3)
        #expect((thumbnails["bytes"] as? NSNumber)?.intValue == 25_900)

        let listed = try #require(try json(CLI.run(["cache", "ls", "--sort", "size", "--json", "--cache-dir", dir.path])) as? [[String: Any]])
        #expect(listed.count == 3)
        let byHost = try #require(try json(CLI.run(["cache", "ls", "--host", "img.shop.example", "--json", "--cache-dir", dir.path])) as? [[String: Any]])
        #expect(byHost.count == 2)

        let shown = try #require(try json(CLI.run(["cache", "show", "https://img.shop.example/p/1.jpg", "--json", "--cache-dir", dir.path])) as? [[String: Any]])
        #expect(shown.count == 2)

        let verify = try #require(try json(CLI.run(["cache", "verify", "--json", "--cache-dir", dir.path])) as? [String: Any])
        #expect((verify["checkedEntries"] as? NSNumber)?.intValue == 3 || (verify["checked_entries"] as? NSNumber)?.intValue == 3)
    }

    @Test func tablesForPeople() throws {
        let dir = try makeCache()
        let stats = try CLI.run(["cache", "stats", "--cache-dir", dir.path])
        #expect(stats.status == 0)
        #expect(stats.stdoutText.contains("disk thumbnails") && stats.stdoutText.contains("img.shop.example"))
        let list = try CLI.run(["cache", "ls", "--cache-dir", dir.path])
        #expect(list.stdoutText.contains("http://other.example:8080/a.png?x=1"))
        #expect(list.stdoutText.contains("200/cover/jpeg/q82"))
    }

    @Test func changesAreRefusedWhileAnotherProcessOwnsTheCache() throws {
        let dir = try makeCache()
        let owner = try Self.reopenAsOwner(dir)
        defer { owner.close() }
        let evict = try CLI.run(["cache", "evict", "https://img.shop.example/p/1.jpg", "--cache-dir", dir.path])
        #expect(evict.status == 1)
        #expect(evict.stderrText.contains("in use by process \(getpid())"), "\(evict.stderrText)")
        let clear = try CLI.run(["cache", "clear", "--cache-dir", dir.path])
        #expect(clear.status == 1)
        // Reading works beside the owner.
        let stats = try CLI.run(["cache", "stats", "--cache-dir", dir.path])
        #expect(stats.status == 0 && stats.stdoutText.contains("owned by process \(getpid())"))
    }

    @Test func evictAndClear() throws {
        let dir = try makeCache()
        let evict = try CLI.run(["cache", "evict", "https://img.shop.example/p/1.jpg", "--cache-dir", dir.path])
        #expect(evict.status == 0 && evict.stdoutText.contains("evicted 2 entries"), "\(evict.stdoutText)\(evict.stderrText)")
        let path = try CLI.run(["cache", "path", "https://img.shop.example/p/1.jpg", "--cache-dir", dir.path])
        #expect(path.status == 1)
        let clear = try CLI.run(["cache", "clear", "--cache-dir", dir.path])
        #expect(clear.status == 0 && clear.stdoutText.contains("cleared 1 entries"), "\(clear.stdoutText)")
        let stats = try #require(try json(CLI.run(["cache", "stats", "--json", "--cache-dir", dir.path])) as? [String: Any])
        #expect(((stats["disk"] as? [String: Any])?["thumbnails"] as? [String: Any])?["entries"] as? NSNumber == 0)
    }

    @Test func aMissingCacheIsAClearError() throws {
        let result = try CLI.run(["cache", "stats", "--cache-dir", "/nonexistent/thumbd-cache"])
        #expect(result.status == 1 && result.stderrText.contains("no thumbd cache at"))
        let missing = try CLI.temporaryDirectory().appendingPathComponent("none")
        let evict = try CLI.run(["cache", "evict", "https://a.example/x.jpg", "--cache-dir", missing.path])
        #expect(evict.status == 1 && evict.stderrText.contains("no thumbd cache at"))
        #expect(!FileManager.default.fileExists(atPath: missing.path), "evict must not create a cache")
        let bad = try CLI.run(["cache", "show", "not a url", "--cache-dir", "/tmp"])
        #expect(bad.status == 2)
    }

    @Test func withFleetNodesConfiguredTheCommandsAskTheNodesUnlessACacheDirectoryIsNamed() throws {
        let dir = try makeCache()
        let config = dir.deletingLastPathComponent().appendingPathComponent("thumbd.yaml")
        let refusing = try RefusingPort()
        let deadPort = refusing.port
        try "fleet:\n  nodes: http://127.0.0.1:\(deadPort)\ncache:\n  dir: \(dir.path)\n".write(to: config, atomically: true, encoding: .utf8)
        let fleet = try CLI.run(["cache", "stats", "--config", config.path, "--json"])
        #expect(fleet.status == 1, "a node that does not answer fails the command")
        let report = try json(fleet) as? [String: Any]
        let nodes = report?["nodes"] as? [[String: Any]]
        #expect(nodes?.count == 1 && nodes?.first?["code"] as? String == "node_unreachable", "\(fleet.stdoutText)")
        let evict = try CLI.run(["cache", "evict", "--host", "img.shop.example", "--config", config.path])
        #expect(evict.status == 1 && evict.stdoutText.contains("on 0 of 1 nodes"), "\(evict.stdoutText)\(evict.stderrText)")
        #expect(try DiskCache.open(at: dir, mode: .readOnly).stats().entries == 3, "nothing was evicted here")
        // Naming the directory means this machine's cache.
        let local = try CLI.run(["cache", "evict", "--host", "img.shop.example", "--config", config.path, "--cache-dir", dir.path, "--json"])
        #expect(local.status == 0, "\(local.stdoutText)\(local.stderrText)")
        #expect(try json(local) as? [String: String] == ["host": "img.shop.example", "removed": "2"])
        let usage = try CLI.run(["cache", "evict", "--config", config.path])
        #expect(usage.status == 2 && usage.stderrText.contains("give a URL or --host HOST"))
        withExtendedLifetime(refusing) {}
    }
}
