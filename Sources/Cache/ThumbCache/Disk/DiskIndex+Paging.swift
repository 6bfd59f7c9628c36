import Foundation
import GRDB

/// Keyset paging over the index: a page starts at a cursor, never at an OFFSET, so the last page of
/// 100,000 entries costs what the first does. Orders with an index (`DiskIndex.listingIndexes`)
/// walk it from the cursor; the others scan once and keep the page's rows in a small sort.
extension DiskIndex {
    struct Page: Sendable {
        var rows: [DiskIndexRow]
        var cursors: [CacheEntryCursor]
        var variants: [String: [String]]
        var total: Int
        var offset: Int
    }

    func page(_ query: CacheEntryQuery) throws -> Page {
        let sort = Self.sortColumn(query.order)
        let descending = sort.descending != query.reversed
        let filter = Self.filter(query)
        return try queue.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entries\(filter.whereClause)", arguments: filter.arguments) ?? 0
            let backward: Bool
            var conditions = filter.conditions
            var arguments = filter.arguments
            switch query.position {
            case .first, .last:
                backward = query.position == .last
            case .after(let cursor), .before(let cursor):
                backward = { if case .before = query.position { return true } else { return false } }()
                conditions.append("(\(sort.column), rowid) \((descending != backward) ? "<" : ">") (?, ?)")
                _ = arguments.append(contentsOf: [cursor.value, cursor.row])
            }
            let walkDescending = descending != backward
            let direction = walkDescending ? "DESC" : "ASC"
            // A filter that keeps many rows finds a page quickly by walking the order's index; a host
            // with few rows is quicker through the host index; otherwise one scan and a small sort.
            let indexes = hasListingIndexes
            let source: String
            if indexes, let index = sort.index, filter.conditions.isEmpty || total >= 4 * query.limit {
                source = "entries INDEXED BY \(index)"
            } else if indexes, query.host != nil, total <= 5000 {
                source = "entries INDEXED BY entries_by_host"
            } else {
                source = "entries NOT INDEXED"
            }
            var sql = "SELECT \(DiskIndexRow.columns), rowid, \(sort.column) FROM \(source)"
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            sql += " ORDER BY \(sort.column) \(direction), rowid \(direction) LIMIT ?"
            _ = arguments.append(contentsOf: [query.limit])
            var fetched = try Row.fetchAll(db, sql: sql, arguments: arguments)
            if backward { fetched.reverse() }
            let parsed = fetched.compactMap { row in
                DiskIndexRow(row: row).map { ($0, CacheEntryCursor(value: row[DiskIndexRow.columnCount + 1], row: row[DiskIndexRow.columnCount])) }
            }
            let rows = parsed.map(\.0)
            let cursors = parsed.map(\.1)

            let offset: Int
            switch query.position {
            case .first: offset = 0
            case .last: offset = max(0, total - rows.count)
            case .after, .before:
                if let first = cursors.first {
                    let before = filter.conditions + ["(\(sort.column), rowid) \(descending ? ">" : "<") (?, ?)"]
                    var beforeArguments = filter.arguments
                    _ = beforeArguments.append(contentsOf: [first.value, first.row])
                    offset = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entries WHERE " + before.joined(separator: " AND "),
                                              arguments: beforeArguments) ?? 0
                } else {
                    offset = backward ? 0 : total
                }
            }
            return Page(rows: rows, cursors: cursors, variants: try Self.variants(db, urls: Set(rows.map(\.url))),
                        total: total, offset: offset)
        }
    }

    /// Hosts with the most entries first (the host index answers without touching the table).
    func hosts(limit: Int) throws -> [CacheHostUsage] {
        try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT host, COUNT(*) AS n, SUM(size) FROM entries GROUP BY host ORDER BY n DESC, host LIMIT ?
                """, arguments: [limit]).map { CacheHostUsage(host: $0[0], entries: $0[1], bytes: $0[2]) }
        }
    }

    private static func variants(_ db: Database, urls: Set<String>) throws -> [String: [String]] {
        guard !urls.isEmpty else { return [:] }
        let list = Array(urls)
        let marks = Array(repeating: "?", count: list.count).joined(separator: ", ")
        var result: [String: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT url, variant FROM entries WHERE url IN (\(marks)) ORDER BY url, variant",
                                    arguments: StatementArguments(list)) {
            result[row[0], default: []].append(row[1])
        }
        return result
    }

    struct Filter {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        var whereClause: String { conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ") }
    }

    static func filter(_ query: CacheEntryQuery) -> Filter {
        var filter = Filter()
        if let host = query.host, !host.isEmpty {
            filter.conditions.append("host = ?")
            _ = filter.arguments.append(contentsOf: [host.lowercased()])
        }
        if let text = query.urlContains, !text.isEmpty {
            filter.conditions.append("url LIKE ? ESCAPE '\\'")
            _ = filter.arguments.append(contentsOf: ["%\(likeEscaped(text))%"])
        }
        if let kind = query.kind {
            filter.conditions.append("kind = ?")
            _ = filter.arguments.append(contentsOf: [kind.rawValue])
        }
        return filter
    }

    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }

    /// Each order's column, its natural direction (largest, oldest, most hit, most recent first),
    /// and the index that walks it, if it has one.
    static func sortColumn(_ order: CacheEntryOrder) -> (column: String, descending: Bool, index: String?) {
        switch order {
        case .size: return ("size", true, "entries_by_size")
        case .age: return ("created_at", false, "entries_by_created")
        case .hits: return ("hits", true, nil)
        case .lastAccess: return ("last_access", true, nil)
        case .evictionOrder: return ("last_access", false, nil)
        }
    }

    /// Where a walk of the least recently used entries has got to: the last row's (last_access, rowid).
    struct UseCursor: Sendable, Equatable {
        /// The column is REAL (unix seconds with their fraction): kept whole, or the next page would
        /// start inside the last second and list its rows again.
        var lastAccess: Double
        var rowid: Int64
    }

    /// The least recently used entries of one kind, `limit` of them after `cursor`, with their sizes,
    /// and the cursor of the last. A cursor, not an OFFSET: taking a million victims in pages of 32
    /// reads each row once, where an OFFSET read the rows before each page again. Read on the
    /// writer's connection, inside its lock, so it sees every change made so far.
    func oldest(originals: Bool, limit: Int, after cursor: UseCursor?) throws -> (rows: [(id: Hash256, size: Int)], cursor: UseCursor?) {
        try queue.writeWithoutTransaction { db in
            // No cursor: from before the first row.
            let from = cursor ?? UseCursor(lastAccess: -.greatestFiniteMagnitude, rowid: .min)
            let statement = try db.cachedStatement(sql: """
                SELECT digest, size, last_access, rowid FROM entries INDEXED BY entries_by_use
                WHERE kind = ? AND (last_access, rowid) > (?, ?) ORDER BY last_access, rowid LIMIT ?
                """)
            let rows = try Row.fetchAll(statement, arguments: [originals ? "original" : "thumbnail", from.lastAccess, from.rowid, limit])
            let last = rows.last.map { UseCursor(lastAccess: $0[2], rowid: $0[3]) }
            return (rows.compactMap { row in Hash256(hex: row[0]).map { ($0, row[1]) } }, last ?? cursor)
        }
    }
}
