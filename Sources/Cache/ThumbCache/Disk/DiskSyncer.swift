import CFileSync
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes `FsyncPolicy.batch` durable: stores rename their files into place without waiting for
/// the disk and say so here; a thread of its own then flushes the cache's filesystem (one syncfs)
/// at most `interval` later, however many files came meanwhile. An fsync per file puts the
/// disk's latency, which a busy disk stretches to tens of milliseconds, inside every store; one
/// flush a second takes it off the answer path and costs one call for all of them.
///
/// What it promises: a file renamed into place before a flush began is on stable storage once
/// that flush returns, and so is the index's log. A power cut loses at most the writes of the
/// last interval plus the flush in progress; the repair after it checksums every file written
/// within `DiskCacheLimits.recheckWindow` (minutes) before the newest row, so such a file is
/// dropped, never served torn.
final class DiskSyncer: Sendable {
    static let interval = 1.0

    struct Progress: Sendable, Hashable {
        /// Flushes that returned without an error.
        var completed = 0
        /// Flushes that failed (a write-back error): the next start must check recent files.
        var failed = 0
    }

    private struct State {
        var writesSinceFlush = 0
        var progress = Progress()
        var injectedFailure: Int32?
    }

    private let directoryFD: Int32
    private let warn: CacheWarningSink
    private let onFailure: @Sendable () -> Void
    private let state = DiskMutex(State())
    private let thread = IntervalThread(name: "thumbd-cache-sync", interval: DiskSyncer.interval)

    /// Opens `directory` (the cache root) for the flushes and starts the thread. Nil when the
    /// directory cannot be opened: the caller then syncs each file itself. `onFailure` runs after
    /// a flush failed, so the next start can learn that files may be lost although the machine
    /// did not stop.
    init?(directory: String, warn: @escaping CacheWarningSink, onFailure: @escaping @Sendable () -> Void) {
        let fd = FileOps.openDescriptor(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        directoryFD = fd
        self.warn = warn
        self.onFailure = onFailure
        thread.start(body: { [self] in flushIfWritten() }, finally: { FileOps.closeDescriptor(fd) })
    }

    /// A file was renamed into place without its own fsync.
    func noteWrite() {
        state.withLock { $0.writesSinceFlush += 1 }
    }

    var progress: Progress { state.withLock { $0.progress } }

    /// Makes the next flush fail with `code`, as a write-back error would (tests only).
    func injectFailure(_ code: Int32) {
        state.withLock { $0.injectedFailure = code }
    }

    /// One syncfs when anything was written since the last; counts the outcome.
    private func flushIfWritten() {
        let (pending, injected) = state.withLock { s -> (Int, Int32?) in
            defer {
                s.writesSinceFlush = 0
                s.injectedFailure = nil
            }
            return (s.writesSinceFlush, s.injectedFailure)
        }
        guard pending > 0 else { return }
        let failure: Int32?
        if let injected {
            failure = injected
        } else {
            failure = thumbd_sync_filesystem(directoryFD) == 0 ? nil : errno
        }
        state.withLock { s in
            if failure == nil { s.progress.completed += 1 } else { s.progress.failed += 1 }
        }
        if let failure {
            onFailure()
            warn("could not flush the cache's new files to disk (\(String(cString: strerror(failure)))): "
                + "\(pending) recent writes may not survive a power cut; the next start checks them")
        }
    }

    /// Flushes what is left, stops the thread and returns once it is done. True when every flush
    /// since the start succeeded, so a clean-shutdown marker may vouch for the files.
    @discardableResult
    func stop() -> Bool {
        thread.stop()
        return state.withLock { $0.progress.failed == 0 }
    }
}
