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
enum IndexWarmUp {
    static let chunk = 1 << 20

    /// Starts the read-through of `path`; returns at once.
    static func start(path: String) {
        guard let size = FileOps.status(path)?.size, size > 0,
              Double(size) <= Double(ProcessInfo.processInfo.physicalMemory) / 4 else { return }
        let thread = Thread {
            let fd = FileOps.openDescriptor(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { _ = FileOps.closeDescriptor(fd) }
            var buffer = [UInt8](repeating: 0, count: chunk)
            var offset: off_t = 0
            while true {
                let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, chunk, offset) }
                if read <= 0 { break }
                offset += off_t(read)
            }
        }
        thread.name = "thumbd-index-warm-up"
        thread.start()
    }
}
