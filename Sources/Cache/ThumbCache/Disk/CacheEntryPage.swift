import Foundation

/// A page of the listing: filters, an order, and where the page starts. Pages are found by
/// position in the order (keyset), not by offset, so the last page of 100,000 entries costs what
/// the first does.
public struct CacheEntryQuery: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        case thumbnail, original
    }

    public enum Position: Sendable, Hashable {
        case first
        case last
        /// The entries that follow the cursor's entry.
        case after(CacheEntryCursor)
        /// The entries that come just before the cursor's entry.
        case before(CacheEntryCursor)
    }

    public var order: CacheEntryOrder
    /// Turns the order around (smallest first, newest first, …).
    public var reversed: Bool
    /// Exact host, as `NormalizedURL.host` writes it (case does not matter).
    public var host: String?
    /// URL substring, case-insensitive for ASCII.
    public var urlContains: String?
    public var kind: Kind?
    public var limit: Int
    public var position: Position

    public static let maxLimit = 500

    public init(order: CacheEntryOrder = .lastAccess, reversed: Bool = false, host: String? = nil, urlContains: String? = nil,
                kind: Kind? = nil, limit: Int = 60, position: Position = .first) {
        self.order = order
        self.reversed = reversed
        self.host = host
        self.urlContains = urlContains
        self.kind = kind
        self.limit = min(max(1, limit), Self.maxLimit)
        self.position = position
    }
}

/// Where an entry sits in an order: the sort column's value and the row's id, which breaks ties.
/// Its text form (`value~row`) is what an API hands out and takes back.
public struct CacheEntryCursor: Sendable, Hashable, LosslessStringConvertible {
    public let value: Double
    public let row: Int64

    public init(value: Double, row: Int64) {
        self.value = value
        self.row = row
    }

    public init?(_ text: String) {
        let parts = text.split(separator: "~")
        guard parts.count == 2, let value = Double(parts[0]), value.isFinite, let row = Int64(parts[1]) else { return nil }
        self.init(value: value, row: row)
    }

    public var description: String { "\(value)~\(row)" }
}

public struct CacheEntryPage: Sendable {
    public var entries: [CacheEntry]
    /// Every variant the cache holds of each URL on the page (the entry's own among them), by URL.
    public var variants: [String: [String]]
    /// Entries that pass the filters.
    public var total: Int
    /// How many of those come before this page's first entry.
    public var offset: Int
    /// `.before(previous)` gives the page before this one; nil on the first page.
    public var previous: CacheEntryCursor?
    /// `.after(next)` gives the page after this one; nil on the last page.
    public var next: CacheEntryCursor?
}
