import NIOCore
import NIOHTTP1
import Synchronization
import ThumbCache

/// Ready responses for hot thumbnails: the head (with this second's Date) and the body already in a
/// NIO buffer. A hit on a hot key then builds no headers and copies no bytes; the cache is still
/// asked every time (its LRU order and counts stay exact) and the prepared response is used only
/// while its checksum matches what the cache holds. Bounded by bytes; emptied when full.
final class PreparedHits: Sendable {
    struct Entry: Sendable {
        /// Compared as the digest's four words: no hex text is made per hit.
        let checksum: Hash256
        /// The tier named in the head's X-Cache.
        let tier: CacheHit.Tier
        let second: Int
        let head: HTTPResponseHead
        let headBytes: ByteBuffer
        let body: ByteBuffer

        init(checksum: Hash256, tier: CacheHit.Tier, second: Int, head: HTTPResponseHead, body: ByteBuffer) {
            (self.checksum, self.tier, self.second, self.head, self.body) = (checksum, tier, second, head, body)
            headBytes = head.encodedBytes()
        }
    }

    private struct Table {
        var entries: [CacheKey: Entry] = [:]
        var bytes = 0
    }

    private let table = Mutex(Table())
    let maxBytes: Int

    init(maxBytes: Int = 32 << 20) {
        self.maxBytes = maxBytes
    }

    func lookup(_ key: CacheKey, tier: CacheHit.Tier, checksum: Hash256?, second: Int) -> Entry? {
        guard let checksum else { return nil }
        return table.withLock { table in
            guard let entry = table.entries[key], entry.second == second, entry.tier == tier, entry.checksum == checksum else { return nil }
            return entry
        }
    }

    func store(_ key: CacheKey, _ entry: Entry) {
        guard entry.body.readableBytes <= maxBytes / 16 else { return }
        table.withLock { table in
            if table.bytes + entry.body.readableBytes > maxBytes {
                table.entries.removeAll(keepingCapacity: true)
                table.bytes = 0
            }
            if let old = table.entries.updateValue(entry, forKey: key) { table.bytes -= old.body.readableBytes }
            table.bytes += entry.body.readableBytes
        }
    }
}
