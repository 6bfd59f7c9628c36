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
/// ```
/// `PRAGMA user_version` is the schema's version (2); GRDB's `grdb_migrations` table lists the
/// steps applied. An owner upgrades an older index in place when it opens it.
///
/// `file` is a generated column (SQLite 3.31 or later, for the `sqlite3` command as well): it costs
/// no space, which keeps the table small enough to load 100,000 rows quickly from a cold disk.
///
/// For example: `sqlite3 ~/.cache/thumbd/index.sqlite "SELECT url, variant, size, hits,
/// datetime(last_access, 'unixepoch') FROM entries ORDER BY last_access DESC LIMIT 20"`.
final class DiskIndex: Sendable {
    static let schemaVersion = 2
    let path: String
    let readOnly: Bool
    let queue: DatabaseQueue
    /// The owner's: checkpoints off the write path.
    private let checkpointer: DiskMutex<WALCheckpointer?>
    /// Whether `listingIndexes` exist (the owner makes them; a reader may find an older index).
    let hasListingIndexes: Bool

    private init(path: String, readOnly: Bool, queue: DatabaseQueue, hasListingIndexes: Bool) {
        self.path = path
        self.readOnly = readOnly
        self.queue = queue
        self.hasListingIndexes = hasListingIndexes
        checkpointer = DiskMutex(nil)
    }

    /// Opens (creating if needed) the owner's connection. Throws `DiskIndexError` or a GRDB error.
    static func openOwner(path: String, fsync: FsyncPolicy) throws -> DiskIndex {
        var config = Configuration()
        config.journalMode = .wal
        config.busyMode = .timeout(10)
        config.label = "thumbd-cache-index"
        let queue = try DatabaseQueue(path: path, configuration: config)
        let index = DiskIndex(path: path, readOnly: false, queue: queue, hasListingIndexes: true)
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
    /// version-1 index when the owner opens it (older readers ignore them). Orders by hits and last
    /// access have none: those columns change on every batch of hits, and each index costs every
    /// write (`thumbd-bench cache` measured inserts that evict at p99 4–7 ms with them, 2.3 ms
    /// without); a scan answers those pages in tens of milliseconds at 100,000 entries.
    static let listingIndexes = [
        "CREATE INDEX IF NOT EXISTS entries_by_size ON entries(size)",
        "CREATE INDEX IF NOT EXISTS entries_by_created ON entries(created_at)",
        "CREATE INDEX IF NOT EXISTS entries_by_host ON entries(host, size)",  // covers the per-host totals
    ]

    private func prepareSchema() throws {
        try queue.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            let tables = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") ?? 0
            // Newer than this thumbd, or not a thumbd index: leave it untouched.
            guard version <= Self.schemaVersion, version > 0 || tables == 0 else { throw DiskIndexError.incompatible(version: version) }
        }
        try Self.migrator.migrate(queue)
        try queue.writeWithoutTransaction { db in
            for statement in Self.listingIndexes { try db.execute(sql: statement) }
        }
    }

    /// The schema's history, one step per change, applied in order to an index made by any earlier
    /// thumbd. `user_version` follows the steps, so a reader (`openReadOnly`) can tell an index of
    /// another version; a column added for `EntryMetadata` is a new step here and a new version.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        // Version 1 predates the migrator: an index it made has these tables but no record of the
        // step, so the step must find them already there and change nothing.
        migrator.registerMigration("1 entries and counters") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS entries (
                    digest        TEXT PRIMARY KEY NOT NULL,
                    url           TEXT NOT NULL,
                    host          TEXT NOT NULL,
                    variant       TEXT NOT NULL,
                    kind          TEXT NOT NULL CHECK (kind IN ('thumbnail', 'original')),
                    file          TEXT GENERATED ALWAYS AS ('objects/' || substr(digest, 1, 2) || '/' || digest) VIRTUAL,
                    size          INTEGER NOT NULL,
                    sha256        TEXT NOT NULL,
                    content_type  TEXT,
                    etag          TEXT,
                    last_modified TEXT,
                    created_at    REAL NOT NULL,
                    validated_at  REAL NOT NULL,
                    last_access   REAL NOT NULL,
                    hits          INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX IF NOT EXISTS entries_by_url ON entries(url);
                CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
                INSERT OR IGNORE INTO counters (name, value) VALUES ('hits', 0), ('misses', 0), ('evictions', 0);
                PRAGMA user_version = 1;
                """)
        }
        // Version 2: what a thumbnail's making learned about the photo (EntryMetadata.photo).
        migrator.registerMigration("2 photo summaries") { db in
            try db.execute(sql: """
                ALTER TABLE entries ADD COLUMN photo_width INTEGER;
                ALTER TABLE entries ADD COLUMN photo_height INTEGER;
                ALTER TABLE entries ADD COLUMN thumbhash BLOB;
                ALTER TABLE entries ADD COLUMN color TEXT;
                PRAGMA user_version = 2;
                """)
        }
        return migrator
    }

    func close() {
        checkpointer.withLock { $0 }?.stop()
        try? queue.close()
    }

    // MARK: Reading

    /// Everything the owner keeps in memory, handed to `body` row by row (no array of 100,000
    /// records in between). The hot path of opening a clean cache: one scan, no URL parsing.
    func loadRecords(_ body: (DiskEntryRecord) -> Void) throws {
        try queue.read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT digest, kind = 'original', last_access, hits, \(EntryMetadata.columns) FROM entries
                """)
            while let row = try rows.next() {
                let digest: String = row[0]
                guard let id = Hash256(hex: digest), let metadata = EntryMetadata(row: row, startingAt: 4) else {
                    throw DiskIndexError.malformedRow(digest)
                }
                body(DiskEntryRecord(id: id, isOriginal: row[1], metadata: metadata, lastAccess: row[2], hits: row[3]))
            }
        }
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
        try queue.inTransaction(.immediate) { db in
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
                let statement = try db.cachedStatement(sql: "UPDATE entries SET last_access = ?, hits = ? WHERE digest = ?")
                for access in batch.accesses { try statement.execute(arguments: [access.lastAccess, access.hits, access.id.hex]) }
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
        }
    }

    /// Moves the write-ahead log into the database (on close, so readers start from one file).
    func checkpoint() {
        _ = try? queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
