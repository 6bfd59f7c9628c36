import Foundation
@_spi(Testing) import ThumbCache
import Testing

/// Entry files kept open for hits: used only while they are what the index says, let go of when
/// their entries go, and never more than the limit.
@Suite("Disk cache kept files")
struct KeptFilesTests {
    private let big = 1 << 20

    /// A cache reopened over `count` stored entries, so that no file has been checked yet.
    private func reopened(_ dir: URL, count: Int, keep: Int = 512, warn: WarningLog = WarningLog()) throws -> (DiskCache, [(CacheKey, [UInt8])]) {
        var limits = DiskTest.limits(1 << 20)
        limits.keptOpenFiles = keep
        let writer = try DiskCache.open(at: dir, limits: limits)
        var stored: [(CacheKey, [UInt8])] = []
        for i in 0..<count {
            let entry = (DiskTest.key(i), DiskTest.bytes(500 + 31 * i, seed: UInt64(i + 1)))
            try writer.store(entry.0, entry.1)
            stored.append(entry)
        }
        writer.close()
        return (try DiskCache.open(at: dir, limits: limits, warn: warn.sink), stored)
    }

    @Test func aCheckedFileIsReadThroughItsKeptDescriptor() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let (cache, stored) = try reopened(dir, count: 3)
        defer { cache.close() }
        let (key, bytes) = stored[1]
        // Not checked yet in this process: a server must read (and hash) it first.
        #expect(try cache.read(key, .verifiedFile(readingUpTo: big)) == nil)
        #expect(cache.keptOpenFiles == 0)
        #expect(try cache.read(key, .bytes)?.bytes == bytes)
        #expect(cache.keptOpenFiles == 1)
        let first = try #require(try cache.read(key, .verifiedFile(readingUpTo: big)))
        #expect(first.bytes == bytes)
        let second = try #require(try cache.read(key, .verifiedFile(readingUpTo: big)))
        #expect(second.bytes == bytes && second.entry.hits == first.entry.hits + 1)
        // Over the size asked for: the entry unread, its file to send as is.
        let unread = try #require(try cache.read(key, .verifiedFile(readingUpTo: bytes.count - 1)))
        #expect(unread.bytes.isEmpty && unread.entry.filePath == DiskTest.dataPath(dir, key))
        #expect(try Data(contentsOf: URL(fileURLWithPath: unread.entry.filePath)) == Data(bytes))
    }

    /// Removed: a kept descriptor would still read the old bytes. Rewritten in place with the same
    /// size: only the change time tells, and the bytes are hashed again.
    @Test(arguments: ["removed", "rewritten in place"])
    func aFileChangedBehindTheCacheIsNotServedFromItsKeptDescriptor(_ change: String) throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let warnings = WarningLog()
        let (cache, stored) = try reopened(dir, count: 2, warn: warnings)
        defer { cache.close() }
        let (key, bytes) = stored[0]
        #expect(try cache.read(key, .bytes)?.bytes == bytes)
        let path = DiskTest.dataPath(dir, key)
        if change == "removed" {
            try FileManager.default.removeItem(atPath: path)
        } else {
            // The kernel stamps change times from a coarse clock (a few ms): let it move on.
            Thread.sleep(forTimeInterval: 0.05)
            var damaged = bytes
            damaged[damaged.count / 2] ^= 0x55
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: damaged)
            try handle.close()
        }
        #expect(try cache.read(key, .verifiedFile(readingUpTo: big)) == nil)
        #expect(try cache.read(key, .bytes) == nil)
        #expect(warnings.contains(change == "removed" ? "its file is missing" : "does not match its checksum"), "\(warnings.all)")
        #expect(!cache.contains(key) && cache.keptOpenFiles == 0)
        #expect(try cache.read(stored[1].0, .bytes)?.bytes == stored[1].1)
    }

    @Test func aReplacedEntryIsReadFromItsNewFile() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let (cache, stored) = try reopened(dir, count: 1)
        defer { cache.close() }
        let (key, bytes) = stored[0]
        #expect(try cache.read(key, .bytes)?.bytes == bytes)
        let replacement = DiskTest.bytes(bytes.count, seed: 99)
        try cache.store(key, replacement)
        #expect(try cache.read(key, .bytes)?.bytes == replacement)
        #expect(try cache.read(key, .verifiedFile(readingUpTo: big))?.bytes == replacement)
    }

    @Test func keptFilesStayWithinTheLimitAndGoWithTheirEntries() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let (cache, stored) = try reopened(dir, count: 10, keep: 4)
        defer { cache.close() }
        for (key, bytes) in stored { #expect(try cache.read(key, .bytes)?.bytes == bytes) }
        #expect(cache.keptOpenFiles == 4)
        // The four kept are the last four read; an older one is read (and kept) again by path.
        #expect(try cache.read(stored[9].0, .verifiedFile(readingUpTo: big))?.bytes == stored[9].1)
        #expect(try cache.read(stored[0].0, .verifiedFile(readingUpTo: big)) == nil)
        #expect(try cache.read(stored[0].0, .bytes)?.bytes == stored[0].1)
        #expect(cache.keptOpenFiles == 4)
        try cache.remove(stored[0].0)
        #expect(cache.keptOpenFiles == 3)
        try cache.clear()
        #expect(cache.keptOpenFiles == 0)
    }

    @Test func aLimitOfZeroKeepsNoFile() throws {
        let dir = DiskTest.makeDirectory()
        defer { DiskTest.cleanUp(dir) }
        let (cache, stored) = try reopened(dir, count: 1, keep: 0)
        defer { cache.close() }
        #expect(try cache.read(stored[0].0, .bytes)?.bytes == stored[0].1)
        #expect(cache.keptOpenFiles == 0)
        #expect(try cache.read(stored[0].0, .verifiedFile(readingUpTo: big)) == nil)
    }
}
