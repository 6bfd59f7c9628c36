import CBackgroundIO
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ThumbCache
import Testing

/// The daemon's read-through of its index, on a real file: it reads what is not cached, skips what
/// is, stops when asked, and runs at the back of the CPU's and the disk's queues.
@Suite("Index read-through")
struct IndexWarmUpTests {
    /// 3.5 MiB of bytes written and flushed: four chunks, the last one short.
    static func writeIndexLikeFile(_ folder: URL) throws -> String {
        let path = folder.appendingPathComponent("index.sqlite").path
        try Data(DiskTest.bytes(IndexWarmUp.chunk * 7 / 2, seed: 42)).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        #expect(fsync(fd) == 0)
        return path
    }

    /// Drops the file's clean pages from the page cache; false where the file system keeps them (tmpfs).
    static func evictFromPageCache(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        return thumbd_file_range_is_cached(fd, 0, Int64(IndexWarmUp.chunk)) == 0
    }

    static func finished(_ warmUp: IndexWarmUp) async throws -> IndexWarmUp.Progress {
        for _ in 0..<1000 {
            if let progress = warmUp.progress { return progress }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the read-through did not finish in 10 s")
        return IndexWarmUp.Progress()
    }

    @Test("a cached file is walked, not read; a file out of the cache is read, and cached after")
    func readsOnlyWhatIsNotCached() async throws {
        let folder = DiskTest.makeDirectory("warm-up")
        defer { DiskTest.cleanUp(folder) }
        let path = try Self.writeIndexLikeFile(folder)
        let cached = try #require(IndexWarmUp.start(path: path))
        #expect(try await Self.finished(cached) == IndexWarmUp.Progress(cachedChunks: 4, readChunks: 0))

        // The kernel may reclaim pages read only once at any moment (on this machine kswapd trims
        // the page cache all the time), so "cached after" is asked of up to three cold read-throughs:
        // one that leaves the whole file in memory shows the reading happened. Each must read.
        var readBack = false
        for _ in 0..<3 where !readBack {
            try #require(Self.evictFromPageCache(path), "this file system keeps the file in memory: nothing to read back")
            let cold = try #require(IndexWarmUp.start(path: path))
            let progress = try await Self.finished(cold)
            #expect(progress.readChunks >= 1 && progress.readChunks + progress.cachedChunks == 4 && !progress.stoppedEarly)
            let fd = open(path, O_RDONLY)
            readBack = thumbd_file_range_is_cached(fd, 0, Int64(IndexWarmUp.chunk * 7 / 2)) == 1
            close(fd)
        }
        #expect(readBack, "read back into the page cache")
    }

    @Test("an empty or missing index starts nothing")
    func nothingToRead() throws {
        let folder = DiskTest.makeDirectory("warm-up")
        defer { DiskTest.cleanUp(folder) }
        let empty = folder.appendingPathComponent("empty").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(IndexWarmUp.start(path: empty) == nil)
        #expect(IndexWarmUp.start(path: folder.appendingPathComponent("missing").path) == nil)
    }

    @Test("a read-through asked to stop reads nothing more")
    func stopIsHonoured() throws {
        let folder = DiskTest.makeDirectory("warm-up")
        defer { DiskTest.cleanUp(folder) }
        let path = try Self.writeIndexLikeFile(folder)
        let warmUp = IndexWarmUp()
        warmUp.stop()
        warmUp.run(path: path, size: off_t(IndexWarmUp.chunk * 7 / 2))
        #expect(warmUp.progress == IndexWarmUp.Progress(cachedChunks: 0, readChunks: 0, stoppedEarly: true))
    }

    @Test("the owner's open with warmIndex starts one and its close stops it; a reader never starts one")
    func closeStopsIt() throws {
        let folder = DiskTest.makeDirectory("warm-up")
        defer { DiskTest.cleanUp(folder) }
        let limits = DiskCacheLimits(maxBytes: 1 << 30, originalsMaxBytes: 0, fsync: .none)
        let cache = try DiskCache.open(at: folder, limits: limits, warmIndex: true, warn: { _ in })
        let warmUp = try #require(cache.indexWarmUp.withLock { $0 })
        #expect(!warmUp.stopRequested)
        cache.close()
        #expect(warmUp.stopRequested)
        let plain = try DiskCache.open(at: folder, limits: limits, warn: { _ in })
        #expect(plain.indexWarmUp.withLock { $0 } == nil, "a one-shot command's open reads nothing through")
        plain.close()
        let readOnly = try DiskCache.open(at: folder, mode: .readOnly, warmIndex: true, warn: { _ in })
        defer { readOnly.close() }
        #expect(readOnly.indexWarmUp.withLock { $0 } == nil, "only the owner reads its index through")
    }

    @Test("the thread goes to the back of the CPU's and the disk's queues")
    func backgroundPriority() async throws {
        let took = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: thumbd_run_thread_in_background()) }
            thread.start()
        }
        #expect(took == 3, "1: nice 19, 2: the idle I/O class; got \(took)")
    }
}
