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
/// remembers it only if no change touched its stripe since the lookup began (`changeCount`), so a
/// row read just before a commit is never kept after it. Striped by the digest's first word so
/// that the two event loops rarely share a lock; a full stripe drops an arbitrary row (the hash
/// order), which costs a later hit one SQLite read, never a wrong answer.
final class HotRecords: Sendable {
    private struct Stripe {
        var records: [Hash256: DiskEntryRecord] = [:]
        /// Changes that touched this stripe: a lookup's read is kept only if none came between.
        var changes: UInt64 = 0
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

    private func stripe(_ id: Hash256) -> DiskMutex<Stripe> {
        stripes[Int(truncatingIfNeeded: id.w0 >> 32) & (Self.stripeCount - 1)]
    }

    func record(_ id: Hash256) -> DiskEntryRecord? {
        guard capacity > 0 else { return nil }
        return stripe(id).withLock { $0.records[id] }
    }

    /// Taken before reading `id`'s row from the index, for `remember`.
    func changeCount(_ id: Hash256) -> UInt64 {
        stripe(id).withLock { $0.changes }
    }

    /// Keeps `record`, read from the index after `changeCount` gave `since`, unless a change
    /// touched its stripe in between.
    func remember(_ record: DiskEntryRecord, since: UInt64) {
        guard capacity > 0 else { return }
        stripe(record.id).withLock { s in
            guard s.changes == since else { return }
            if s.records.count >= perStripe, s.records[record.id] == nil, let victim = s.records.keys.first {
                s.records[victim] = nil
            }
            var kept = record
            kept.verified = false  // the owner's own set says which files it checked
            s.records[record.id] = kept
        }
    }

    /// After `batch` was committed (or failed: then the rows may be anything, and go too).
    func applied(_ batch: DiskIndexBatch, committed: Bool) {
        guard capacity > 0 else { return }
        if batch.deleteAll || !batch.malformedDigests.isEmpty || !committed {
            // A malformed digest names no id here; and after a failed commit nothing is known.
            for stripe in stripes { stripe.withLock { s in s.records.removeAll(); s.changes &+= 1 } }
            return
        }
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

    private func change(_ id: Hash256, _ body: (inout DiskEntryRecord?) -> Void) {
        stripe(id).withLock { s in
            s.changes &+= 1
            guard s.records[id] != nil else { return }
            body(&s.records[id])
        }
    }

    var count: Int { stripes.reduce(0) { total, stripe in total + stripe.withLock { $0.records.count } } }
}
