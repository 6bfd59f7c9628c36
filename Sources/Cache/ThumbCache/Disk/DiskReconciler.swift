import Foundation
import Synchronization

/// When an owner repairs a directory left by a crash: before `open` returns (a tool, a test), or
/// after, beside the requests it serves (the daemon: it answers at once at any cache size).
public enum DiskRepairTiming: Sendable {
    case beforeOpening
    case inBackground
}

/// How far the repair after an unclean stop has come: one folder of `objects/` after another.
public struct DiskRepairProgress: Sendable, Equatable {
    /// Folders of `objects/` examined, of `foldersTotal` (256 when a repair runs, 0 otherwise).
    public var foldersDone = 0
    public var foldersTotal = 0
    public var filesChecksummed = 0
    public var entriesRepaired = 0
    public var finished = true
    public var startedAt: Double?
    public var finishedAt: Double?

    public var fractionDone: Double { foldersTotal == 0 ? 1 : Double(foldersDone) / Double(foldersTotal) }
}

/// The state of the repair thread (or of none): progress, a stop request, and its end.
final class DiskReconciler: Sendable {
    private let progressState = DiskMutex(DiskRepairProgress())
    private let finishedFlag = Atomic<Bool>(true)
    private let thread = StoppableThread(name: "thumbd-cache-repair")

    /// True when no repair is pending: until then every file is checksummed before it is served.
    var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    var isStopRequested: Bool { thread.isStopRequested }
    var progress: DiskRepairProgress { progressState.withLock { $0 } }

    func begin(folders: Int) {
        finishedFlag.store(false, ordering: .releasing)
        progressState.withLock { p in
            p = DiskRepairProgress(foldersDone: 0, foldersTotal: folders, finished: false, startedAt: FileOps.monotonicSeconds())
        }
    }

    func update(_ change: (inout DiskRepairProgress) -> Void) { progressState.withLock(change) }

    func finish() {
        progressState.withLock { p in
            p.finished = true
            p.finishedAt = FileOps.monotonicSeconds()
        }
        finishedFlag.store(true, ordering: .releasing)
    }

    /// Runs `body` on a thread of its own (it blocks on file I/O).
    func start(_ body: @escaping @Sendable () -> Void) { thread.start(body) }

    /// Asks a running repair to stop after its current folder and waits for it.
    func stopAndWait() { thread.stopAndWait() }
}
