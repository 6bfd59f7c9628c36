import CBackgroundIO
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the index through once, on a thread of its own, after a long-running owner (the daemon:
/// `DiskCache.open(warmIndex:)`; a one-shot command never asks) opened it, so its pages
/// are in the page cache before stores need them. A store with eviction touches a handful of
/// b-tree pages at random places (its key, its URL, its victim's); at ten million entries the index
/// is about 5 GB, and after a restart each of those pages was a read from disk, up to 96 ms on this
/// project's machine. Opening does not wait for it, and a lookup meanwhile only reads sooner what
/// it would have read anyway. Skipped when the index is over a quarter of the machine's memory,
/// where it would push out more than it keeps.
///
/// It must never be what a store waits for: the thread runs at the lowest CPU priority and in the
/// idle I/O class, so a store's own page reads go to the disk first; it reads only the parts that
/// are not cached already (a reopen of a warm index costs a walk of its page map, not 5 GB of
/// copies); and the cache's close stops it.
final class IndexWarmUp: Sendable {
    static let chunk = 1 << 20

    private let stopped = DiskMutex(false)
    private let finished = DiskMutex<Progress?>(nil)

    /// What one read-through did: chunks found cached, chunks read.
    struct Progress: Equatable {
        var cachedChunks = 0
        var readChunks = 0
        var stoppedEarly = false
    }

    init() {}

    /// Starts the read-through of `path`; returns at once. Nil when the file is missing, empty or too large.
    static func start(path: String) -> IndexWarmUp? {
        guard let size = FileOps.status(path)?.size, size > 0,
              Double(size) <= Double(ProcessInfo.processInfo.physicalMemory) / 4 else { return nil }
        let warmUp = IndexWarmUp()
        let thread = Thread { warmUp.run(path: path, size: off_t(size)) }
        thread.name = "thumbd-index-warm-up"
        thread.start()
        return warmUp
    }

    /// Asks the thread to stop after the chunk it is reading; returns at once.
    func stop() {
        stopped.withLock { $0 = true }
    }

    var stopRequested: Bool { stopped.withLock { $0 } }

    /// What the read-through did once it is over; nil while it runs.
    var progress: Progress? { finished.withLock { $0 } }

    /// Up to the size the file had at open: what a checkpoint adds later was just written, so cached.
    func run(path: String, size: off_t) {
        var progress = Progress()
        defer { finished.withLock { $0 = progress } }
        _ = thumbd_run_thread_in_background()
        let fd = FileOps.openDescriptor(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { _ = FileOps.closeDescriptor(fd) }
        var buffer = [UInt8](repeating: 0, count: Self.chunk)
        var offset: off_t = 0
        while offset < size {
            if stopRequested {
                progress.stoppedEarly = true
                return
            }
            let length = min(off_t(Self.chunk), size - offset)
            if thumbd_file_range_is_cached(fd, Int64(offset), Int64(length)) == 1 {
                progress.cachedChunks += 1
                offset += length
                continue
            }
            let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(length), offset) }
            if read <= 0 { return }
            progress.readChunks += 1
            offset += off_t(read)
        }
    }
}
