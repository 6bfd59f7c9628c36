import Foundation
import Synchronization

/// How far the trim of a cache found over its limits at open has come.
public struct DiskTrimProgress: Sendable, Equatable, Encodable {
    /// Bytes over the limits (thumbnails and originals together) when the cache opened; 0: no trim.
    public var bytesOverAtStart = 0
    /// Bytes still over them now.
    public var bytesOver = 0
    public var finished = true

    /// 1 when nothing is or was over.
    public var fractionDone: Double {
        bytesOverAtStart == 0 ? 1 : min(1, max(0, 1 - Double(bytesOver) / Double(bytesOverAtStart)))
    }
}

/// The trim's thread: a cache found over its limits (a lowered `cache.disk_max_mib` or
/// `originals_max_mib`) opens at once, and this evicts the excess, oldest first, a chunk at a time
/// under the writer's lock, while every store frees at least what it adds.
final class DiskTrimmer: Sendable {
    private let overAtStart = Atomic<Int>(0)
    private let finishedFlag = Atomic<Bool>(true)
    private let thread = StoppableThread(name: "thumbd-cache-trim")

    var isStopRequested: Bool { thread.isStopRequested }
    var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    var bytesOverAtStart: Int { overAtStart.load(ordering: .relaxed) }

    /// Runs `body` (the trim) on a thread of its own.
    func start(bytesOver: Int, _ body: @escaping @Sendable () -> Void) {
        overAtStart.store(bytesOver, ordering: .relaxed)
        finishedFlag.store(false, ordering: .releasing)
        thread.start { [self] in
            body()
            finishedFlag.store(true, ordering: .releasing)
        }
    }

    /// Asks a running trim to stop after its current chunk and waits for it.
    func stopAndWait() { thread.stopAndWait() }
}

extension DiskCache {
    /// Bytes over each kind's limit now (files waiting for the reaper included).
    var bytesOverLimits: Int {
        let totals = state.withLock { $0.totals }
        return [false, true].reduce(0) { sum, originals in
            sum + max(0, totals.bytes(originals: originals) + reapingBytes(originals: originals) - limits.maxBytes(originals: originals))
        }
    }

    /// The trim of a cache found over its limits at open (`open(repair: .inBackground)`).
    public var trimProgress: DiskTrimProgress {
        DiskTrimProgress(bytesOverAtStart: trimmer.bytesOverAtStart, bytesOver: bytesOverLimits, finished: trimmer.isFinished)
    }

    /// At open: the excess evicted now (`.beforeOpening`), or by the trim's thread while the cache
    /// serves (`.inBackground`), with a line when it starts and one when it is done.
    func keepBudgetsAtOpen(_ timing: DiskRepairTiming) throws(CacheError) {
        let over = bytesOverLimits
        guard over > 0 else { return }
        switch timing {
        case .beforeOpening:
            try keepBudgets()
        case .inBackground:
            let usage = usage
            warn("cache over its limits by \(over >> 20) MiB (thumbnails \(usage.thumbnails.bytes >> 20) of \(usage.thumbnails.maxBytes >> 20) MiB, "
                 + "originals \(usage.originals.bytes >> 20) of \(usage.originals.maxBytes >> 20) MiB): serving now, trimming the oldest "
                 + "entries in the background (thumbd_cache_trim_progress_ratio)")
            let started = FileOps.monotonicSeconds()
            trimmer.start(bytesOver: over) { [self] in
                do {
                    // Small chunks: the writer's lock is free again after each, for the stores.
                    let completed = try keepBudgets(chunk: 500, shouldStop: { [trimmer] in trimmer.isStopRequested })
                    if completed {
                        warn("cache trimmed to its limits in \(Int((FileOps.monotonicSeconds() - started).rounded())) s")
                    }
                } catch {
                    warn("the trim of the cache stopped: \(error); stores keep it from growing")
                }
            }
        }
    }
}
