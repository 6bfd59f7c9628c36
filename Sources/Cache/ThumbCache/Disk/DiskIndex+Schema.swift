import Foundation
import GRDB

// The index's schema: made or upgraded in place when the owner opens it (`DiskIndex` documents the
// tables), and the secondary indexes a bulk fill drops and makes again.
extension DiskIndex {
    /// For a bulk fill of an empty index: rows go in without the secondary indexes, which are then
    /// made in one sort each. Inserting each row into five b-trees in random order is what makes a
    /// fill of ten million rows take hours (every commit rewrites pages all over each tree).
    func dropSecondaryIndexes() throws {
        try queue.writeWithoutTransaction { db in
            for statement in Self.secondaryIndexes {
                guard let name = statement.split(separator: " ").dropFirst(5).first else { continue }
                try db.execute(sql: "DROP INDEX IF EXISTS \(name)")
            }
        }
    }

    func createSecondaryIndexes() throws {
        try queue.writeWithoutTransaction { db in
            for statement in Self.secondaryIndexes { try db.execute(sql: statement) }
        }
    }

    func prepareSchema() throws {
        try queue.writeWithoutTransaction { db in
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            let tables = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") ?? 0
            // Newer than this thumbd, or not a thumbd index: leave it untouched.
            guard version <= Self.schemaVersion, version > 0 || tables == 0 else { throw DiskIndexError.incompatible(version: version) }
        }
        try Self.migrator.migrate(queue)
        try createSecondaryIndexes()
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
        // Version 3: the owner keeps no entry in memory. `totals` answers "how full is each budget"
        // at once at any size (triggers keep it in the same transaction as every change), and
        // `entries_by_use` gives eviction the least recently used entries without a scan.
        migrator.registerMigration("3 totals and use order") { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS totals (kind TEXT PRIMARY KEY NOT NULL, entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
                INSERT OR REPLACE INTO totals (kind, entries, bytes)
                    SELECT k.kind, COUNT(e.digest), COALESCE(SUM(e.size), 0)
                    FROM (SELECT 'thumbnail' AS kind UNION ALL SELECT 'original') AS k LEFT JOIN entries AS e ON e.kind = k.kind
                    GROUP BY k.kind;
                CREATE TRIGGER IF NOT EXISTS entries_added AFTER INSERT ON entries BEGIN
                    UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.size WHERE kind = NEW.kind;
                END;
                CREATE TRIGGER IF NOT EXISTS entries_removed AFTER DELETE ON entries BEGIN
                    UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.size WHERE kind = OLD.kind;
                END;
                CREATE TRIGGER IF NOT EXISTS entries_resized AFTER UPDATE OF size, kind ON entries BEGIN
                    UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.size WHERE kind = OLD.kind;
                    UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.size WHERE kind = NEW.kind;
                END;
                CREATE INDEX IF NOT EXISTS entries_by_use ON entries(kind, last_access);
                PRAGMA user_version = 3;
                """)
        }
        return migrator
    }
}
