import Digests

/// A slot's place on the list: slot numbers, -1 for none. A free slot's `next` chains the free list.
/// Beside them, the entry's hits since the last `drainHits`: a hit writes this line anyway.
struct LRULink: Sendable {
    var prev: Int32
    var next: Int32
    var hits: UInt32 = 0
}

/// What one slot held, handed out of the lock when the slot is let go.
struct LRUNode: Sendable {
    var key: CacheKey?
    var value: [UInt8]
}

/// What a stripe let go of while locked: replaced bytes, evicted or removed entries. The stripe
/// hands it out of the lock so the last release of the bytes (and of the key's strings) — a
/// `free`, possibly an `munmap` for big buffers — happens after the lock is open. Two entries
/// are held inline, so the usual set (one replacement or one eviction) allocates nothing.
struct DroppedEntries: Sendable {
    private var first: LRUNode?
    private var second: LRUNode?
    private var more: [LRUNode] = []
    private(set) var count = 0

    mutating func add(_ node: LRUNode) {
        switch count {
        case 0: first = node
        case 1: second = node
        default: more.append(node)
        }
        count += 1
    }
}

/// An exact LRU with O(1) get, set and remove, bounded by bytes and by entries: a dictionary from
/// the key's SHA-256 to a slot, and a doubly linked list (most recently used at `head`) threaded
/// through the slots. A slot's parts live in three arrays, so a hit touches only the small hot
/// ones: `links` (8 bytes a slot) and `values` (one reference a slot); `keys` is read by
/// evictions and scans only. Not synchronized: `MemoryCache` keeps each one inside a `Mutex`.
///
/// Entries are identified by the 256-bit digest (the same identity that names the disk tier's
/// files), which the key carries inline, so a lookup compares four words and never follows a
/// string's storage.
struct LRUStripe: Sendable {
    struct Counters: Sendable {
        var hits = 0
        var misses = 0
        var insertions = 0
        var replacements = 0
        var evictions = 0
        var removals = 0
        var rejections = 0
    }

    let maxBytes: Int
    let maxEntries: Int
    private var index: [SHA256Digest: Int32] = [:]
    private var links: [LRULink] = []
    private var values: [[UInt8]] = []
    private var keys: [CacheKey?] = []
    private var head: Int32 = -1
    private var tail: Int32 = -1
    private var freeHead: Int32 = -1
    private(set) var count = 0
    private(set) var bytes = 0
    private(set) var counters = Counters()

    init(maxBytes: Int, maxEntries: Int) {
        self.maxBytes = maxBytes
        self.maxEntries = maxEntries
    }

    func contains(_ digest: SHA256Digest) -> Bool {
        index[digest] != nil
    }

    mutating func get(_ digest: SHA256Digest) -> [UInt8]? {
        guard let slot = index[digest] else {
            counters.misses &+= 1
            return nil
        }
        counters.hits &+= 1
        links[Int(slot)].hits &+= 1
        if slot != head {
            unlink(slot)
            pushFront(slot)
        }
        return values[Int(slot)]
    }

    mutating func set(_ key: CacheKey, _ value: [UInt8]) -> DroppedEntries {
        var dropped = DroppedEntries()
        let size = value.count
        guard size <= maxBytes, maxEntries > 0 else {
            counters.rejections += 1
            if let slot = index.removeValue(forKey: key.digestBits) {  // never leave the older bytes behind
                dropped.add(release(slot))
                counters.removals += 1
            }
            return dropped
        }
        if let slot = index[key.digestBits] {
            var old = value
            swap(&old, &values[Int(slot)])
            bytes += size - old.count
            dropped.add(LRUNode(key: nil, value: old))
            counters.replacements += 1
            if slot != head {
                unlink(slot)
                pushFront(slot)
            }
            // The entry itself fits (size <= maxBytes), so this stops before reaching it.
            while bytes > maxBytes, tail != slot {
                evictTail(into: &dropped)
            }
            return dropped
        }
        while count >= maxEntries || bytes + size > maxBytes, tail >= 0 {
            evictTail(into: &dropped)
        }
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = links[Int(slot)].next
            keys[Int(slot)] = key
            values[Int(slot)] = value
            links[Int(slot)].hits = 0
        } else {
            slot = Int32(links.count)
            links.append(LRULink(prev: -1, next: -1))
            keys.append(key)
            values.append(value)
        }
        pushFront(slot)
        index[key.digestBits] = slot
        count += 1
        bytes += size
        counters.insertions += 1
        return dropped
    }

    mutating func remove(_ digest: SHA256Digest) -> DroppedEntries {
        var dropped = DroppedEntries()
        if let slot = index.removeValue(forKey: digest) {
            dropped.add(release(slot))
            counters.removals += 1
        }
        return dropped
    }

    /// Removes the entries in `scope` among slots `start ..< start + limit`; returns them and the slot
    /// to continue from, nil when the scan reached the end.
    mutating func removeAll(_ scope: CacheScope, slotsFrom start: Int, limit: Int) -> (DroppedEntries, Int?) {
        var dropped = DroppedEntries()
        let end = min(keys.count, start + limit)
        var i = start
        while i < end {
            if let key = keys[i], scope.contains(key) {
                index.removeValue(forKey: key.digestBits)
                dropped.add(release(Int32(i)))
                counters.removals += 1
            }
            i += 1
        }
        return (dropped, end < keys.count ? end : nil)
    }

    /// Hands over the hits counted for the entries among slots `start ..< start + limit` and
    /// starts them again from zero; returns the slot to continue from, nil at the end.
    mutating func drainHits(slotsFrom start: Int, limit: Int, into found: inout [(key: CacheKey, hits: Int)]) -> Int? {
        let end = min(keys.count, start + limit)
        var i = start
        while i < end {
            let count = links[i].hits
            if count > 0 {
                if let key = keys[i] { found.append((key, Int(count))) }
                links[i].hits = 0
            }
            i += 1
        }
        return end < keys.count ? end : nil
    }

    /// The storage `clear` takes out, to be freed after the lock is open.
    struct Cleared: Sendable {
        var index: [SHA256Digest: Int32]
        var values: [[UInt8]]
        var keys: [CacheKey?]
    }

    /// Empties the stripe; returns the old storage so it is freed after the lock is open.
    mutating func clear() -> Cleared {
        let old = Cleared(index: index, values: values, keys: keys)
        index = [:]
        links = []
        values = []
        keys = []
        head = -1
        tail = -1
        freeHead = -1
        counters.removals += count
        count = 0
        bytes = 0
        return old
    }

    /// Keys and sizes, most recently used first.
    func listed() -> [(key: CacheKey, size: Int)] {
        var result: [(key: CacheKey, size: Int)] = []
        result.reserveCapacity(count)
        var slot = head
        while slot >= 0, result.count <= count {
            if let key = keys[Int(slot)] { result.append((key, values[Int(slot)].count)) }
            slot = links[Int(slot)].next
        }
        return result
    }

    func problems() -> [String] {
        var problems: [String] = []
        if links.count != keys.count || links.count != values.count {
            return ["slot arrays disagree: \(links.count) links, \(keys.count) keys, \(values.count) values"]
        }
        var seen = 0
        var sum = 0
        var previous: Int32 = -1
        var slot = head
        while slot >= 0 {
            guard Int(slot) < links.count, seen <= links.count else {
                problems.append("list runs off the slots or loops (at slot \(slot))")
                break
            }
            let link = links[Int(slot)]
            if link.prev != previous { problems.append("slot \(slot): prev \(link.prev), expected \(previous)") }
            if let key = keys[Int(slot)] {
                if index[key.digestBits] != slot { problems.append("slot \(slot): index says \(index[key.digestBits].map(String.init) ?? "absent")") }
            } else {
                problems.append("slot \(slot): free slot on the list")
            }
            seen += 1
            sum += values[Int(slot)].count
            previous = slot
            slot = link.next
        }
        if tail != previous { problems.append("tail \(tail), list ends at \(previous)") }
        if seen != count { problems.append("list has \(seen) entries, count says \(count)") }
        if index.count != count { problems.append("index has \(index.count) keys, count says \(count)") }
        if sum != bytes { problems.append("entries hold \(sum) bytes, bytes says \(bytes)") }
        if count > maxEntries { problems.append("\(count) entries over the limit \(maxEntries)") }
        if bytes > maxBytes { problems.append("\(bytes) bytes over the limit \(maxBytes)") }
        var free = 0
        slot = freeHead
        while slot >= 0, free <= links.count {
            if keys[Int(slot)] != nil || !values[Int(slot)].isEmpty { problems.append("free slot \(slot) holds an entry") }
            free += 1
            slot = links[Int(slot)].next
        }
        if free + count != links.count { problems.append("\(free) free + \(count) used slots, \(links.count) in all") }
        let c = counters
        if c.insertions - c.evictions - c.removals != count {
            problems.append("insertions \(c.insertions) - evictions \(c.evictions) - removals \(c.removals) != \(count) entries")
        }
        return problems
    }

    // MARK: - List

    private mutating func unlink(_ slot: Int32) {
        let link = links[Int(slot)]
        if link.prev >= 0 { links[Int(link.prev)].next = link.next } else { head = link.next }
        if link.next >= 0 { links[Int(link.next)].prev = link.prev } else { tail = link.prev }
    }

    private mutating func pushFront(_ slot: Int32) {
        links[Int(slot)].prev = -1
        links[Int(slot)].next = head
        if head >= 0 { links[Int(head)].prev = slot } else { tail = slot }
        head = slot
    }

    /// Unlinks `slot` (already gone from `index`), puts it on the free list and returns what it held.
    private mutating func release(_ slot: Int32) -> LRUNode {
        unlink(slot)
        links[Int(slot)] = LRULink(prev: -1, next: freeHead)
        freeHead = slot
        var node = LRUNode(key: nil, value: [])
        swap(&node.key, &keys[Int(slot)])
        swap(&node.value, &values[Int(slot)])
        count -= 1
        bytes -= node.value.count
        return node
    }

    private mutating func evictTail(into dropped: inout DroppedEntries) {
        let slot = tail
        if let key = keys[Int(slot)] { index.removeValue(forKey: key.digestBits) }
        dropped.add(release(slot))
        counters.evictions += 1
    }
}
