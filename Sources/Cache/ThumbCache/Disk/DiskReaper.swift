import Foundation

/// Unlinks evicted files on a thread of its own, so a store that must evict waits for the index's
/// commit and not for the file system. With millions of files, unlinking one that has gone cold
/// (its directory block and inode read back from disk, a journal handle taken) took up to 160 ms
/// on this project's machine: inline, that was the slowest store in a hundred.
///
/// The files waiting are still the cache's bytes: `pendingBytes` counts them against the budget
/// until they are gone, so `objects/` never holds more than the budget. At most
/// `DiskCacheLimits.unlinkQueueBytes` wait; a victim beyond that is unlinked by its store, as
/// before. Their rows are already gone, so a crash leaves them as files without rows, which the
/// repair after the unclean start removes (`DiskCache.reapingBytes` counts a full queue as used
/// until that repair is done).
///
/// A store of an entry whose old file still waits takes it back first (`claim`), so the reaper
/// never unlinks a file renamed into place after its eviction.
final class DiskReaper: Sendable {
    struct Victim: Sendable {
        let id: Hash256
        let size: Int
        let originals: Bool
    }

    private struct State {
        /// Oldest first; an entry whose id is no longer in `waiting` was claimed and is skipped.
        var order: [Hash256] = []
        var head = 0
        var waiting: [Hash256: Victim] = [:]
        /// The file being unlinked now (under `unlinking`).
        var current: Hash256?
        var bytes = [false: 0, true: 0]
        var reaped = 0
        var failures = 0
    }

    private let state = DiskMutex(State())
    /// Held from taking a victim until its unlink has returned: `claim` waits on it.
    private let unlinking = DiskMutex(())
    private let thread = IntervalThread(name: "thumbd-cache-reaper", interval: 1)
    private let capacity: [Bool: Int]
    private let unlink: @Sendable (Hash256) -> Bool

    /// `unlink` removes one entry's files and says whether it could; `capacity` is the bytes of
    /// each kind (originals: true) that may wait.
    init(capacity: [Bool: Int], unlink: @escaping @Sendable (Hash256) -> Bool) {
        self.capacity = capacity
        self.unlink = unlink
        thread.start(body: { [self] in drain() }, finally: {})
    }

    /// Bytes of one kind that may wait for their unlink.
    func capacity(originals: Bool) -> Int { capacity[originals] ?? 0 }

    /// Bytes of one kind whose rows are gone and whose files are still there.
    func pendingBytes(originals: Bool) -> Int { state.withLock { $0.bytes[originals] ?? 0 } }

    /// Files waiting, files unlinked, unlinks that failed.
    var progress: (waiting: Int, reaped: Int, failures: Int) {
        state.withLock { ($0.waiting.count + ($0.current == nil ? 0 : 1), $0.reaped, $0.failures) }
    }

    /// Queues the victims that fit the queue; returns the others, for the caller to unlink now.
    func take(_ victims: [Victim]) -> [Victim] {
        guard !victims.isEmpty else { return [] }
        let refused = state.withLock { s -> [Victim] in
            var refused: [Victim] = []
            for victim in victims {
                let waiting = s.bytes[victim.originals] ?? 0
                guard s.waiting[victim.id] == nil, waiting + victim.size <= capacity(originals: victim.originals) else {
                    refused.append(victim)
                    continue
                }
                s.waiting[victim.id] = victim
                s.order.append(victim.id)
                s.bytes[victim.originals] = waiting + victim.size
            }
            return refused
        }
        if refused.count < victims.count { thread.nudge() }
        return refused
    }

    /// Takes `id` back if its file waits (true: the caller unlinks it now), or waits while it is
    /// being unlinked, so a file the caller puts in its place next is never removed.
    func claim(_ id: Hash256) -> Bool {
        let (wasWaiting, busy) = state.withLock { s -> (Bool, Bool) in
            if let victim = s.waiting.removeValue(forKey: id) {
                s.bytes[victim.originals, default: 0] -= victim.size
                return (true, false)
            }
            return (false, s.current == id)
        }
        if busy { unlinking.withLock { _ in } }
        return wasWaiting
    }

    /// Unlinks every waiting file on the caller's thread (before a verify or a clear).
    func drain() {
        while reapOne() {}
    }

    /// Unlinks what waits (the thread's last run), then stops the thread.
    func stop() {
        thread.stop()
    }

    private func reapOne() -> Bool {
        unlinking.withLock { _ -> Bool in
            let next = state.withLock { s -> Victim? in
                while s.head < s.order.count {
                    let id = s.order[s.head]
                    s.head += 1
                    if let victim = s.waiting.removeValue(forKey: id) {
                        s.current = id
                        // Under steady eviction the queue may never run empty: drop the taken part now and then.
                        if s.head > 1024 && s.head * 2 > s.order.count {
                            s.order.removeFirst(s.head)
                            s.head = 0
                        }
                        return victim
                    }
                }
                s.order.removeAll(keepingCapacity: true)
                s.head = 0
                return nil
            }
            guard let victim = next else { return false }
            let removed = unlink(victim.id)
            state.withLock { s in
                s.current = nil
                s.bytes[victim.originals, default: 0] -= victim.size
                if removed { s.reaped += 1 } else { s.failures += 1 }
            }
            return true
        }
    }
}
