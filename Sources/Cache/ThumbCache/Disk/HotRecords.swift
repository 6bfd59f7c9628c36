/// Index rows that lookups read lately, kept in memory so that a disk hit on one asks SQLite
/// nothing. A read through GRDB's pool costs a hand-off to the reader's dispatch queue, a
/// BEGIN, the SELECT and a COMMIT, with SQLite's shared-memory locks: measured under wrk, that
/// was over a quarter of a disk hit's CPU, and disk hits ran at a quarter of nginx's rate. nginx
/// keeps every key in its shared-memory zone; this keeps only the entries being served, so the
/// index stays on disk (ten million entries open at once, issue 30) and the memory is bounded
/// by `capacity`, not by the cache's size.
///
/// The table copies the index: every change to the index (`DiskIndex.apply`) removes or updates
/// the rows it touches, after its commit. A lookup that missed here reads the row from SQLite and
/// remembers it only if no change to its stripe began or ended since the lookup began
/// (`changeCount`), and none was being committed: a row read before a commit is never kept after
/// it, nor one read after a commit kept before the commit's own update (which would add a batch of
/// hits twice). Striped by the digest's first word so
/// that the two event loops rarely share a lock; a full stripe drops an arbitrary row (the hash
/// order), which costs a later hit one SQLite read, never a wrong answer.
final class HotRecords: Sendable {
    private struct Stripe {
        var records: [Hash256: DiskEntryRecord] = [:]
        /// Changes that began or ended on this stripe: a lookup's read is kept only if none did
        /// while it read.
        var changes: UInt64 = 0
        /// Batches touching this stripe being committed now: nothing read meanwhile is kept.
        var writing = 0
    }

    static let stripeCount = 16
    private let stripes: [DiskMutex<Stripe>]
    let capacity: Int
    private let perStripe: Int

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        perStripe = (self.capacity + Self.stripeCount - 1) / Self.stripeCount
        stripes = (0..<Self.stripeCount).map { _ in DiskMutex(Stripe()) }
    }

    private func stripeIndex(_ id: Hash256) -> Int {
        Int(truncatingIfNeeded: id.w0 >> 32) & (Self.stripeCount - 1)
    }

    private func stripe(_ id: Hash256) -> DiskMutex<Stripe> { stripes[stripeIndex(id)] }

    /// The stripes `batch` changes: every one for a change that names no id.
    private func stripeIndexes(_ batch: DiskIndexBatch) -> Set<Int> {
        if batch.deleteAll || !batch.malformedDigests.isEmpty { return Set(stripes.indices) }
        var ids = batch.deletes + batch.accesses.map(\.id) + batch.revalidations.map(\.id)
        ids += batch.upserts.compactMap { Hash256(hex: $0.digest) }
        return Set(ids.map(stripeIndex))
    }

    func record(_ id: Hash256) -> DiskEntryRecord? {
        guard capacity > 0 else { return nil }
        return stripe(id).withLock { $0.records[id] }
    }

    /// Taken before reading `id`'s row from the index, for `remember`; nil while a change to its
    /// stripe is being committed (what is read then is not kept).
    func changeCount(_ id: Hash256) -> UInt64? {
        stripe(id).withLock { $0.writing > 0 ? nil : $0.changes }
    }

    /// Keeps `record`, read from the index after `changeCount` gave `since`, unless a change to
    /// its stripe began or ended in between.
    func remember(_ record: DiskEntryRecord, since: UInt64?) {
        guard capacity > 0, let since else { return }
        stripe(record.id).withLock { s in
            guard s.writing == 0, s.changes == since else { return }
            if s.records.count >= perStripe, s.records[record.id] == nil, let victim = s.records.keys.first {
                s.records[victim] = nil
            }
            var kept = record
            kept.verified = false  // the owner's own set says which files it checked
            s.records[record.id] = kept
        }
    }

    /// Before `batch` is committed: until `applied`, nothing read on the stripes it changes is kept.
    func willApply(_ batch: DiskIndexBatch) {
        guard capacity > 0 else { return }
        for index in stripeIndexes(batch) { stripes[index].withLock { s in s.writing += 1; s.changes &+= 1 } }
    }

    /// After `batch` was committed (or failed: then the rows may be anything, and go too).
    func applied(_ batch: DiskIndexBatch, committed: Bool) {
        guard capacity > 0 else { return }
        if batch.deleteAll || !batch.malformedDigests.isEmpty || !committed {
            // A malformed digest names no id here; and after a failed commit nothing is known.
            for stripe in stripes { stripe.withLock { s in s.records.removeAll(); s.changes &+= 1 } }
        } else {
            for id in batch.deletes { change(id) { $0 = nil } }
            for row in batch.upserts { if let id = Hash256(hex: row.digest) { change(id) { $0 = nil } } }
            for access in batch.accesses {
                change(access.id) { record in
                    record?.hits += access.addedHits
                    if let time = record?.lastAccess { record?.lastAccess = max(time, access.lastAccess) }
                }
            }
            for (id, metadata) in batch.revalidations { change(id) { $0?.metadata = metadata } }
        }
        for index in stripeIndexes(batch) { stripes[index].withLock { s in s.writing = max(0, s.writing - 1); s.changes &+= 1 } }
    }

    private func change(_ id: Hash256, _ body: (inout DiskEntryRecord?) -> Void) {
        stripe(id).withLock { s in
            s.changes &+= 1
            guard s.records[id] != nil else { return }
            body(&s.records[id])
        }
    }

    var count: Int { stripes.reduce(0) { total, stripe in total + stripe.withLock { $0.records.count } } }
}
