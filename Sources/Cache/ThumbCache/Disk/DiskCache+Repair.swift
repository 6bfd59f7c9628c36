import Foundation

/// The repair after an unclean stop, folder by folder, beside a live cache; and the budgets.
extension DiskCache {
    /// How far the repair after an unclean stop has come (finished, with no folders, when none ran).
    public var repairProgress: DiskRepairProgress { reconciler.progress }

    /// Waits until the repair after an unclean stop has finished (for tools and tests).
    public func waitForRepair() {
        while !reconciler.isFinished && !reconciler.isStopRequested { usleep(2_000) }
    }

    /// Examines every folder of `objects/` against the index and repairs what disagrees. Each
    /// folder is examined without the writer lock; each entry found wrong is repaired under it, as
    /// it is then, so a store or an eviction meanwhile is never undone.
    func reconcileFolders(recentFrom: Double) {
        let recovery = DiskRecovery(layout: layout)
        var total = DiskRecovery.Outcome()
        var failure: String?
        for value in 0..<256 where !reconciler.isStopRequested {
            let fanout = String(format: "%02x", value)
            do {
                let rows: [DiskIndexRow]
                do { rows = try index.rows(fanout: fanout) } catch { throw CacheError.indexFailed(reason: "\(error)") }
                var findings: DiskRecovery.FolderFindings
                do throws(FileOpError) { findings = try recovery.examine(fanout: fanout, rows: rows, recentFrom: recentFrom) } catch {
                    throw CacheError.readFailed(path: layout.fanoutPath(fanout), reason: error.description)
                }
                state.withLock { s in for row in findings.verified { if let record = row.record { s.verified.insert(record) } } }
                for id in findings.suspects { try repairEntry(id, recovery: recovery, into: &findings.outcome) }
                total.add(findings.outcome)
            } catch {
                failure = failure ?? "\(error)"
            }
            reconciler.update { p in
                p.foldersDone = value + 1
                p.filesChecksummed = total.checksummed
                p.entriesRepaired = total.adopted + total.droppedRows
            }
        }
        let stopped = reconciler.isStopRequested
        if let failure {
            writer.withLock { $0.needsReconcile = true }
            warn("the repair of the cache at \(layout.root) did not finish (it runs again on the next start): \(failure)")
        } else if stopped {
            writer.withLock { $0.needsReconcile = true }
        } else {
            let seconds = FileOps.monotonicSeconds() - (reconciler.progress.startedAt ?? FileOps.monotonicSeconds())
            warn("the cache at \(layout.root) was not closed cleanly; repair finished in \(String(format: "%.1f", seconds)) s: \(total.summary)")
        }
        if !stopped { reconciler.finish() }
    }

    /// `repair` for one entry under the writer lock, its index change committed, budgets kept.
    private func repairEntry(_ id: Hash256, recovery: DiskRecovery, into outcome: inout DiskRecovery.Outcome) throws(CacheError) {
        try writer.withLock { (w) throws(CacheError) in
            guard !w.closed, let index = w.index else { throw CacheError.closed }
            let row: DiskIndexRow?
            do { row = try index.row(digest: id.hex) } catch { throw Self.indexError(error, path: layout.indexPath) }
            var one = DiskRecovery.Outcome()
            do throws(FileOpError) { try recovery.repair(id, row: row, into: &one) } catch {
                throw CacheError.directoryUnusable(directory: layout.root, reason: error.description)
            }
            if !one.batch.deletes.isEmpty || !one.batch.upserts.isEmpty {
                openFiles.forget(id)
                state.withLock { s in
                    s.pending.forget(id)
                    s.verified.forget(id)
                }
            }
            try commitOrThrow(one.batch, &w)
            outcome.add(one)
            if let adopted = one.batch.upserts.first {
                try evictOverBudgetLocked(originals: adopted.isOriginal, &w)
            }
        }
    }

    /// Evicts least recently used entries of each kind until it fits its budget (at open, the
    /// limits may have shrunk since the last run), `chunk` entries under the writer's lock at a
    /// time, so stores and lookups go on between chunks; false when `shouldStop` ended it early.
    @discardableResult
    func keepBudgets(chunk: Int = 10_000, shouldStop: () -> Bool = { false }) throws(CacheError) -> Bool {
        for originals in [false, true] {
            while true {
                if shouldStop() { return false }
                let evicted = try writer.withLock { (w) throws(CacheError) -> Int in
                    guard !w.closed else { return 0 }
                    return try evictOverBudgetLocked(originals: originals, maxVictims: chunk, &w)
                }
                if evicted == 0 { break }
            }
        }
        return true
    }

    /// Evicts up to `maxVictims` of the oldest entries of one kind while it is over its budget; how many.
    @discardableResult
    func evictOverBudgetLocked(originals: Bool, maxVictims: Int? = nil, _ w: inout WriterState) throws(CacheError) -> Int {
        let cap = maxVictims ?? Int.max
        var evicted = 0
        while evicted < cap {
            let victims = try victimsLocked(originals: originals, making: 0, wholeExcess: true, maxVictims: min(cap - evicted, 10_000), &w)
            guard !victims.isEmpty else { return evicted }
            evicted += victims.count
            let chunk = victims.map(\.id)
            for id in chunk { removeFiles(id, &w) }
            let counters = state.withLock { s -> DiskCounters in
                for id in chunk {
                    s.pending.forget(id)
                    s.verified.forget(id)
                }
                s.counters.evictions += chunk.count
                return s.counters
            }
            try commitOrThrow(DiskIndexBatch(deletes: chunk, counters: counters), &w)
        }
        return evicted
    }
}
