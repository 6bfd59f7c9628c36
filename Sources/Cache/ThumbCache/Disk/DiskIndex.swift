import Foundation
import GRDB

/// The disk tier's index: one SQLite database, `DIR/index.sqlite`, in WAL mode so readers
/// (`sqlite3`, `thumbd cache …` beside a running daemon) never block the owner or see half a change.
///
/// Schema (version 1, `PRAGMA user_version = 1`):
///
/// ```sql
/// CREATE TABLE entries (
///     digest        TEXT PRIMARY KEY NOT NULL, -- SHA-256 (hex) of url + "\n" + variant; names the file
///     url           TEXT NOT NULL,             -- normalized URL
///     host          TEXT NOT NULL,             -- its host (lower-case; ":port" when not the default)
///     variant       TEXT NOT NULL,             -- size/fit/format/qQUALITY, e.g. 200/cover/jpeg/q82
///     kind          TEXT NOT NULL,             -- 'thumbnail' or 'original' (separate budgets)
///     file          TEXT GENERATED ALWAYS AS ('objects/' || substr(digest, 1, 2) || '/' || digest) VIRTUAL,
///                                              -- the file, relative to the cache directory (computed, not stored)
///     size          INTEGER NOT NULL,          -- bytes
///     sha256        TEXT NOT NULL,             -- SHA-256 (hex) of the file's bytes
///     content_type  TEXT,
///     etag          TEXT,                      -- the origin's ETag, for If-None-Match
///     last_modified TEXT,                      -- the origin's Last-Modified, for If-Modified-Since
///     created_at    REAL NOT NULL,             -- unix seconds
///     validated_at  REAL NOT NULL,             -- unix seconds of the store or last 304; stale after the TTL
///     last_access   REAL NOT NULL,             -- unix seconds of the last hit (written in batches)
///     hits          INTEGER NOT NULL DEFAULT 0,
///     photo_width   INTEGER,                   -- a thumbnail's photo as displayed (after EXIF orientation);
///     photo_height  INTEGER,                   --   NULL for originals and entries stored by format 1
///     thumbhash     BLOB,                      -- the photo's ThumbHash placeholder
///     color         TEXT                       -- how its colours were handled (X-Thumbd-Color); NULL: sRGB
/// );
/// CREATE INDEX entries_by_url ON entries(url);
/// -- and, for the listing: entries_by_size(size), entries_by_created(created_at), entries_by_host(host, size)
/// CREATE TABLE counters (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);  -- hits, misses, evictions
/// CREATE TABLE totals (kind TEXT PRIMARY KEY NOT NULL, entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
/// -- kept by triggers on entries (insert, delete, update of size or kind)
/// CREATE INDEX entries_by_use ON entries(kind, last_access);  -- eviction's order
/// ```
/// `PRAGMA user_version` is the schema's version (3); GRDB's `grdb_migrations` table lists the
/// steps applied. An owner upgrades an older index in place when it opens it.
///
/// `file` is a generated column (SQLite 3.31 or later, for the `sqlite3` command as well): it costs
/// no space, which keeps the table small enough to load 100,000 rows quickly from a cold disk.
///
/// For example: `sqlite3 ~/.cache/thumbd/index.sqlite "SELECT url, variant, size, hits,
/// datetime(last_access, 'unixepoch') FROM entries ORDER BY last_access DESC LIMIT 20"`.
final class DiskIndex: Sendable {
    static let schemaVersion = 3
    let path: String
    let readOnly: Bool
    /// The owner's is a pool: lookups read on connections of their own, beside the writer (WAL),
    /// so a hit never waits for a store's commit. A reader's is one read-only connection.
    let queue: any DatabaseWriter
    /// The owner's: checkpoints off the write path.
    private let checkpointer: DiskMutex<WALCheckpointer?>
    /// Whether `listingIndexes` exist (the owner makes them; a reader may find an older index).
    let hasListingIndexes: Bool
    /// The owner's copy of the rows being served (a reader's is empty: another process writes).
    let hot: HotRecords

    private init(path: String, readOnly: Bool, queue: any DatabaseWriter, hasListingIndexes: Bool, hotRecords: Int = 0) {
        self.path = path
        self.readOnly = readOnly
        self.queue = queue
        self.hasListingIndexes = hasListingIndexes
        hot = HotRecords(capacity: readOnly ? 0 : hotRecords)
        checkpointer = DiskMutex(nil)
    }

    /// Opens (creating if needed) the owner's connection. Throws `DiskIndexError` or a GRDB error.
    static func openOwner(path: String, fsync: FsyncPolicy, hotRecords: Int) throws -> DiskIndex {
        var config = Configuration()
        config.journalMode = .wal
        config.busyMode = .timeout(10)
        config.label = "thumbd-cache-index"
        config.maximumReaderCount = 4
        // A REPLACE that deletes a row must run the delete trigger that keeps `totals`.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA recursive_triggers = ON") }
        let queue = try DatabasePool(path: path, configuration: config)
        let index = DiskIndex(path: path, readOnly: false, queue: queue, hasListingIndexes: true, hotRecords: hotRecords)
        do {
            // After GRDB's WAL setup, which sets NORMAL: commits are atomic and survive a crash of
            // the process; FULL also survives power loss.
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(fsync == .full ? "FULL" : "NORMAL")")
            }
            try index.prepareSchema()
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_autocheckpoint = \(WALCheckpointer.writerFallbackPages)")
            }
            let checkpointer = try WALCheckpointer(path: path)
            index.checkpointer.withLock { $0 = checkpointer }
        } catch {
            try? queue.close()
            throw error
        }
        return index
    }

    /// Opens a read-only connection beside a running owner (or none).
    static func openReadOnly(path: String) throws -> DiskIndex {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(10)
        config.label = "thumbd-cache-index-reader"
        let queue = try DatabaseQueue(path: path, configuration: config)
        let present = (try? queue.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'entries_by_host'")
        }) ?? 0
        let index = DiskIndex(path: path, readOnly: true, queue: queue, hasListingIndexes: present == 1)
        do {
            let version = try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
            guard version == schemaVersion else { throw DiskIndexError.incompatible(version: version) }
        } catch {
            try? queue.close()
            throw error
        }
        return index
    }

    /// The listing's orders by size and age, and its host filter and per-host totals, added to a
    /// version-1 index when the owner opens it (older readers ignore them). Hits have none: that
    /// column changes on every batch of hits, and each index costs every write; a scan answers
    /// those pages in tens of milliseconds at 100,000 entries. Last access has `entries_by_use`
    /// (schema 3), which eviction needs now that no LRU list is kept in memory.
    static let listingIndexes = [
        "CREATE INDEX IF NOT EXISTS entries_by_size ON entries(size)",
        "CREATE INDEX IF NOT EXISTS entries_by_created ON entries(created_at)",
        "CREATE INDEX IF NOT EXISTS entries_by_host ON entries(host, size)",  // covers the per-host totals
    ]

    /// Every index beside the primary key's. The owner makes any that are missing when it opens
    /// the index, so one dropped by a bulk fill that did not finish comes back at the next start.
    static let secondaryIndexes = [
        "CREATE INDEX IF NOT EXISTS entries_by_url ON entries(url)",
        "CREATE INDEX IF NOT EXISTS entries_by_use ON entries(kind, last_access)",
    ] + listingIndexes

    func close() {
        checkpointer.withLock { $0 }?.stop()
        try? queue.close()
    }

    // MARK: Reading

    /// What a lookup needs of one entry, or nil: from `hot` when it was read lately, else one read
    /// by the primary key on a reader's connection (tens of microseconds at ten million rows while
    /// the pages are in the OS cache), remembered in `hot`.
    func record(_ id: Hash256) throws -> DiskEntryRecord? {
        if let kept = hot.record(id) { return kept }
        let since = hot.changeCount(id)
        let read = try storedRecord(id)
        if let read { hot.remember(read, since: since) }
        return read
    }

    private func storedRecord(_ id: Hash256) throws -> DiskEntryRecord? {
        try queue.read { db in
            let statement = try db.cachedStatement(sql: """
                SELECT kind = 'original', last_access, hits, \(EntryMetadata.columns) FROM entries WHERE digest = ?
                """)
            guard let row = try Row.fetchOne(statement, arguments: [id.hex]) else { return nil }
            guard let metadata = EntryMetadata(row: row, startingAt: 3) else { throw DiskIndexError.malformedRow(id.hex) }
            return DiskEntryRecord(id: id, isOriginal: row[0], metadata: metadata, lastAccess: row[1], hits: row[2])
        }
    }

    /// Entries and bytes of each kind, kept by the schema's triggers (no scan).
    func totals() throws -> DiskTotals {
        try queue.writeWithoutTransaction { db in try Self.readTotals(db) }
    }

    private static func readTotals(_ db: Database) throws -> DiskTotals {
        var totals = DiskTotals()
        for row in try Row.fetchAll(db, sql: "SELECT kind, entries, bytes FROM totals") {
            let kind: String = row[0]
            let slot = kind == "original" ? 1 : 0
            totals.counts[slot] = row[1]
            totals.bytes[slot] = row[2]
        }
        return totals
    }

    /// The rows whose digest starts with `fanout` (two hex digits): one folder of `objects/`.
    func rows(fanout: String) throws -> [DiskIndexRow] {
        let next = String(format: "%02x", (Int(fanout, radix: 16) ?? 0) + 1)
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(DiskIndexRow.columns) FROM entries WHERE digest >= ? AND digest < ?",
                             arguments: [fanout, fanout == "ff" ? "g" : next]).compactMap(DiskIndexRow.init(row:))
        }
    }

    /// Digests of one kind, least recently used first (for tests of the LRU).
    func useOrder(originals: Bool) throws -> [String] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT digest FROM entries WHERE kind = ? ORDER BY last_access, rowid",
                                arguments: [originals ? "original" : "thumbnail"])
        }
    }

    /// The newest entry's creation time (by `entries_by_created`, no scan).
    func newestCreated() throws -> Double? {
        try queue.read { db in try Double.fetchOne(db, sql: "SELECT MAX(created_at) FROM entries") }
    }

    func entryCount() throws -> Int {
        try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entries") ?? 0 }
    }

    /// Every row, least recently used first, and the digests of rows that do not parse.
    func loadRows() throws -> (rows: [DiskIndexRow], malformed: [String]) {
        try queue.read { db in
            var rows: [DiskIndexRow] = [], malformed: [String] = []
            let cursor = try Row.fetchCursor(db, sql: "SELECT \(DiskIndexRow.columns) FROM entries ORDER BY last_access")
            while let row = try cursor.next() {
                if let parsed = DiskIndexRow(row: row) { rows.append(parsed) } else { malformed.append(row[0]) }
            }
            return (rows, malformed)
        }
    }

    func row(digest: String) throws -> DiskIndexRow? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT \(DiskIndexRow.columns) FROM entries WHERE digest = ?", arguments: [digest])
                .flatMap(DiskIndexRow.init(row:))
        }
    }

    func rows(url: String) throws -> [DiskIndexRow] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(DiskIndexRow.columns) FROM entries WHERE url = ? ORDER BY variant", arguments: [url])
                .compactMap(DiskIndexRow.init(row:))
        }
    }

    func digests(in scope: CacheScope) throws -> [String] {
        try queue.read { db in
            switch scope {
            case .entry(let key): return try String.fetchAll(db, sql: "SELECT digest FROM entries WHERE digest = ?", arguments: [key.digest])
            case .url(let url): return try String.fetchAll(db, sql: "SELECT digest FROM entries WHERE url = ?", arguments: [url.value])
            case .host(let host): return try String.fetchAll(db, sql: "SELECT digest FROM entries WHERE host = ?", arguments: [host])
            }
        }
    }

    /// Offset paging, for `thumbd cache ls`: the same filters and orders as `page`, ties by row.
    func list(order: CacheEntryOrder, host: String?, urlContains: String?, limit: Int?, offset: Int) throws -> [DiskIndexRow] {
        let filter = Self.filter(CacheEntryQuery(order: order, host: host, urlContains: urlContains))
        let sort = Self.sortColumn(order)
        let direction = sort.descending ? "DESC" : "ASC"
        var arguments = filter.arguments
        _ = arguments.append(contentsOf: [limit ?? -1, max(0, offset)])
        let sql = "SELECT \(DiskIndexRow.columns) FROM entries\(filter.whereClause) ORDER BY \(sort.column) \(direction), rowid \(direction) LIMIT ? OFFSET ?"
        let finalArguments = arguments
        return try queue.read { db in
            try Row.fetchAll(db, sql: sql, arguments: finalArguments).compactMap(DiskIndexRow.init(row:))
        }
    }

    func counters() throws -> DiskCounters {
        try queue.read { db in try Self.readCounters(db) }
    }

    private static func readCounters(_ db: Database) throws -> DiskCounters {
        var counters = DiskCounters()
        for row in try Row.fetchAll(db, sql: "SELECT name, value FROM counters") {
            let name: String = row[0], value: Int = row[1]
            switch name {
            case "hits": counters.hits = value
            case "misses": counters.misses = value
            case "evictions": counters.evictions = value
            default: break
            }
        }
        return counters
    }

    /// The aggregate half of `DiskCacheStats` (entries, bytes, hosts, histogram, dates).
    func aggregate(staleBefore: Double) throws -> DiskIndexAggregate {
        try queue.read { db in
            var result = DiskIndexAggregate()
            for row in try Row.fetchAll(db, sql: "SELECT kind, COUNT(*), COALESCE(SUM(size), 0) FROM entries GROUP BY kind") {
                let kind: String = row[0]
                if kind == "original" { result.originals = (row[1], row[2]) } else { result.thumbnails = (row[1], row[2]) }
            }
            if let row = try Row.fetchOne(db, sql: "SELECT MIN(created_at), MAX(created_at), MIN(last_access) FROM entries") {
                result.oldestCreated = row[0]
                result.newestCreated = row[1]
                result.leastRecentAccess = row[2]
            }
            result.stale = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entries WHERE validated_at < ?", arguments: [staleBefore]) ?? 0
            result.topHosts = try Row.fetchAll(db, sql: """
                SELECT host, COUNT(*), SUM(size) AS bytes FROM entries GROUP BY host ORDER BY bytes DESC, host LIMIT 10
                """).map { CacheHostUsage(host: $0[0], entries: $0[1], bytes: $0[2]) }
            let bounds = CacheSizeBucket.bounds
            var cases = ""
            for (i, bound) in bounds.enumerated().dropFirst() { cases += " WHEN size < \(bound) THEN \(i - 1)" }
            var buckets = (0..<bounds.count).map { i in
                CacheSizeBucket(lowerBound: bounds[i], upperBound: i + 1 < bounds.count ? bounds[i + 1] : nil, entries: 0, bytes: 0)
            }
            for row in try Row.fetchAll(db, sql: """
                SELECT CASE\(cases) ELSE \(bounds.count - 1) END AS bucket, COUNT(*), SUM(size) FROM entries GROUP BY bucket
                """) {
                let bucket: Int = row[0]
                if buckets.indices.contains(bucket) {
                    buckets[bucket].entries = row[1]
                    buckets[bucket].bytes = row[2]
                }
            }
            result.histogram = buckets
            return result
        }
    }

    /// `PRAGMA quick_check`: nil when the database is sound, else SQLite's first complaint.
    func quickCheck() throws -> String? {
        try queue.read { db in
            let result = try String.fetchAll(db, sql: "PRAGMA quick_check")
            return result == ["ok"] ? nil : result.prefix(3).joined(separator: "; ")
        }
    }

    var fileBytes: Int {
        [path, path + "-wal", path + "-shm"].reduce(0) { $0 + Int(FileOps.status($1)?.size ?? 0) }
    }

    // MARK: Writing

    /// Applies one batch in one transaction: all of it or none of it.
    func apply(_ batch: DiskIndexBatch) throws {
        guard !batch.isEmpty else { return }
        hot.willApply(batch)
        var committed = false
        defer { hot.applied(batch, committed: committed) }
        try write(batch)
        committed = true
    }

    private func write(_ batch: DiskIndexBatch) throws {
        try queue.writeWithoutTransaction { db in try db.inTransaction(.immediate) {
            if batch.deleteAll {
                try db.execute(sql: "DELETE FROM entries")
            }
            if !batch.deletes.isEmpty || !batch.malformedDigests.isEmpty {
                let statement = try db.cachedStatement(sql: "DELETE FROM entries WHERE digest = ?")
                for id in batch.deletes { try statement.execute(arguments: [id.hex]) }
                for digest in batch.malformedDigests { try statement.execute(arguments: [digest]) }
            }
            if !batch.upserts.isEmpty {
                let placeholders = Array(repeating: "?", count: DiskIndexRow.columnCount).joined(separator: ", ")
                let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO entries (\(DiskIndexRow.columns)) VALUES (\(placeholders))")
                for row in batch.upserts { try statement.execute(arguments: StatementArguments(row.databaseValues)) }
            }
            if !batch.accesses.isEmpty {
                let statement = try db.cachedStatement(sql: "UPDATE entries SET last_access = MAX(last_access, ?), hits = hits + ? WHERE digest = ?")
                for access in batch.accesses { try statement.execute(arguments: [access.lastAccess, access.addedHits, access.id.hex]) }
            }
            if !batch.revalidations.isEmpty {
                let placeholders = Array(repeating: "?", count: EntryMetadata.columnCount).joined(separator: ", ")
                let statement = try db.cachedStatement(sql: "UPDATE entries SET (\(EntryMetadata.columns)) = (\(placeholders)) WHERE digest = ?")
                for (id, metadata) in batch.revalidations {
                    try statement.execute(arguments: StatementArguments(metadata.databaseValues + [id.hex]))
                }
            }
            if let counters = batch.counters {
                let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)")
                try statement.execute(arguments: ["hits", counters.hits])
                try statement.execute(arguments: ["misses", counters.misses])
                try statement.execute(arguments: ["evictions", counters.evictions])
            }
            return .commit
        } }
    }

    /// Moves the write-ahead log into the database (on close, so readers start from one file).
    func checkpoint() {
        _ = try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
