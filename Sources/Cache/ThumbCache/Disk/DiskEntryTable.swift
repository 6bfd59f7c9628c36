/// What the owner keeps in memory for one entry: enough to answer a lookup (and check the bytes)
/// without touching the index. URL and variant are not kept: the caller's key has them.
struct DiskEntryRecord: Sendable, Equatable {
    var id: Hash256
    var isOriginal: Bool
    var metadata: EntryMetadata
    /// Unix seconds.
    var lastAccess: Double
    var hits: Int
    /// Set by the table on insert: tells a reader that read a file outside the lock whether the
    /// entry it saw is still the one in the table.
    var generation: UInt64 = 0
    /// This process has read the file and found its checksum right. Entry files are never
    /// rewritten in place (a new version is a new file renamed over), so one check per file per
    /// process catches damage from before the start, and later hits skip hashing the bytes.
    var verified = false

    var kind: Int { isOriginal ? 1 : 0 }
    var size: Int { metadata.size }
}

/// An entry's use after a hit.
struct DiskEntryUse: Sendable {
    var hits: Int
    /// Unix seconds.
    var lastAccess: Double
}

/// The owner's map of entries with one LRU list per budget (thumbnails, originals): a dictionary
/// from digest to slot and a doubly linked list through an array of slots, so hit, insert,
/// remove and "oldest" are O(1). Not synchronized: `DiskCache` keeps it behind a lock.
struct DiskEntryTable: Sendable {
    private struct Slot: Sendable {
        var record: DiskEntryRecord?
        var prev: Int32 = -1
        var next: Int32 = -1
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    private var index: [Hash256: Int32] = [:]
    /// Least recently used end of each list (index 0: thumbnails, 1: originals).
    private var heads: [Int32] = [-1, -1]
    /// Most recently used end.
    private var tails: [Int32] = [-1, -1]
    private(set) var bytes = [0, 0]
    private(set) var counts = [0, 0]
    private var nextGeneration: UInt64 = 1

    init(capacity: Int = 0) {
        slots.reserveCapacity(capacity)
        index.reserveCapacity(capacity)
    }

    var count: Int { index.count }

    func bytes(originals: Bool) -> Int { bytes[originals ? 1 : 0] }
    func count(originals: Bool) -> Int { counts[originals ? 1 : 0] }

    subscript(id: Hash256) -> DiskEntryRecord? {
        guard let slot = index[id] else { return nil }
        return slots[Int(slot)].record
    }

    /// A table holding `records` (in any order), linked least recently used first by `lastAccess`.
    init(loading records: [DiskEntryRecord]) {
        self.init(capacity: records.count)
        for record in records { appendUnlinked(record) }
        linkByLastAccess()
    }

    /// Bulk loading, step 1: adds an entry without linking it into its LRU list. A duplicate id
    /// (impossible by the schema) is skipped. Call `linkByLastAccess` once all are in.
    mutating func appendUnlinked(_ record: DiskEntryRecord) {
        let slot = Int32(slots.count)
        // One hash lookup per entry: opening 100,000 entries must stay well under 300 ms.
        if let previous = index.updateValue(slot, forKey: record.id) {
            index[record.id] = previous
            return
        }
        var record = record
        record.generation = nextGeneration
        nextGeneration += 1
        slots.append(Slot(record: record))
        bytes[record.kind] += record.size
        counts[record.kind] += 1
    }

    /// Bulk loading, step 2: links every appended entry, least recently used first. Sorts small
    /// (time, slot) pairs, not the records.
    mutating func linkByLastAccess() {
        var order: [(lastAccess: Double, slot: Int32)] = []
        order.reserveCapacity(slots.count)
        for (slot, item) in slots.enumerated() {
            if let record = item.record, item.prev < 0, item.next < 0, heads[record.kind] != Int32(slot) {
                order.append((record.lastAccess, Int32(slot)))
            }
        }
        order.sort { $0.lastAccess < $1.lastAccess || ($0.lastAccess == $1.lastAccess && $0.slot < $1.slot) }
        for item in order {
            link(item.slot, kind: slots[Int(item.slot)].record?.kind ?? 0)
        }
    }

    /// Adds an entry as the most recently used of its kind. False (and nothing changes) if the
    /// id is already present.
    @discardableResult
    mutating func insert(_ record: DiskEntryRecord) -> DiskEntryRecord? {
        let slot = freeSlots.last ?? Int32(slots.count)
        // One hash lookup on the common path (opening 100,000 entries does this 100,000 times).
        if let previous = index.updateValue(slot, forKey: record.id) {
            index[record.id] = previous
            return nil
        }
        var record = record
        record.generation = nextGeneration
        nextGeneration += 1
        if slot == freeSlots.last {
            freeSlots.removeLast()
            slots[Int(slot)] = Slot(record: record)
        } else {
            slots.append(Slot(record: record))
        }
        link(slot, kind: record.kind)
        bytes[record.kind] += record.size
        counts[record.kind] += 1
        return record
    }

    @discardableResult
    mutating func remove(_ id: Hash256) -> DiskEntryRecord? {
        guard let slot = index.removeValue(forKey: id), let record = slots[Int(slot)].record else { return nil }
        unlink(slot, kind: record.kind)
        slots[Int(slot)] = Slot()
        freeSlots.append(slot)
        bytes[record.kind] -= record.size
        counts[record.kind] -= 1
        return record
    }

    /// A hit: counts it, stamps the time and makes the entry the most recently used.
    mutating func touch(_ id: Hash256, now: Double) -> DiskEntryUse? {
        guard let slot = index[id], slots[Int(slot)].record != nil else { return nil }
        // In place: a copy of the record would retain and release each of its strings per hit.
        slots[Int(slot)].record!.hits += 1
        slots[Int(slot)].record!.lastAccess = max(slots[Int(slot)].record!.lastAccess, now)
        let kind = slots[Int(slot)].record!.kind
        unlink(slot, kind: kind)
        link(slot, kind: kind)
        return DiskEntryUse(hits: slots[Int(slot)].record!.hits, lastAccess: slots[Int(slot)].record!.lastAccess)
    }

    /// The generation of `id`'s record, read without copying the record.
    func generation(_ id: Hash256) -> UInt64? {
        guard let slot = index[id] else { return nil }
        return slots[Int(slot)].record?.generation
    }

    /// Changes metadata in place (not size, kind, id or LRU position).
    mutating func update(_ id: Hash256, _ change: (inout DiskEntryRecord) -> Void) -> DiskEntryRecord? {
        guard let slot = index[id], var record = slots[Int(slot)].record else { return nil }
        let fixed = (record.id, record.metadata.size, record.isOriginal, record.generation)
        change(&record)
        (record.id, record.metadata.size, record.isOriginal, record.generation) = fixed
        slots[Int(slot)].record = record
        return record
    }

    /// The entry the next eviction of this kind would take.
    func oldest(originals: Bool) -> DiskEntryRecord? {
        let head = heads[originals ? 1 : 0]
        return head < 0 ? nil : slots[Int(head)].record
    }

    /// Entries of one kind, least recently used first.
    func lruOrder(originals: Bool) -> [DiskEntryRecord] {
        var result: [DiskEntryRecord] = []
        var slot = heads[originals ? 1 : 0]
        while slot >= 0 {
            if let record = slots[Int(slot)].record { result.append(record) }
            slot = slots[Int(slot)].next
        }
        return result
    }

    var all: [DiskEntryRecord] { slots.compactMap(\.record) }

    private mutating func link(_ slot: Int32, kind: Int) {
        let tail = tails[kind]
        slots[Int(slot)].prev = tail
        slots[Int(slot)].next = -1
        if tail >= 0 { slots[Int(tail)].next = slot } else { heads[kind] = slot }
        tails[kind] = slot
    }

    private mutating func unlink(_ slot: Int32, kind: Int) {
        let prev = slots[Int(slot)].prev, next = slots[Int(slot)].next
        if prev >= 0 { slots[Int(prev)].next = next } else { heads[kind] = next }
        if next >= 0 { slots[Int(next)].prev = prev } else { tails[kind] = prev }
        slots[Int(slot)].prev = -1
        slots[Int(slot)].next = -1
    }
}
