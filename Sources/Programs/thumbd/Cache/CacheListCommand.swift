import ArgumentParser
import ConsoleText
import Foundation
import ThumbCache

struct CacheListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List cached entries, largest, oldest, most used or most recently used first."
    )

    @OptionGroup var options: CacheOptions

    @Option(help: "Order: size, age (oldest first), hits, or recent (most recently used first).")
    var sort: ListOrder = .recent

    @Option(help: "Only entries from this host (as in the URL, e.g. img.example.com or host:8080).")
    var host: String?

    @Option(name: .customLong("url-contains"), help: "Only entries whose URL contains this text.")
    var urlContains: String?

    @Option(help: "At most this many entries.")
    var limit: Int = 50

    @Option(help: "Skip this many entries first (for paging).")
    var offset: Int = 0

    enum ListOrder: String, ExpressibleByArgument, CaseIterable {
        case size, age, hits, recent

        var cacheOrder: CacheEntryOrder {
            switch self {
            case .size: .size
            case .age: .age
            case .hits: .hits
            case .recent: .lastAccess
            }
        }
    }

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
        guard offset >= 0 else { throw ValidationError("--offset cannot be negative.") }
    }

    mutating func run() async throws {
        try await options.loadConfiguration()
        try CacheCommandFailure.run {
            let cache = try options.openForReading()
            defer { cache.close() }
            let entries = try cache.entries(sortedBy: sort.cacheOrder, host: host, urlContains: urlContains, limit: limit, offset: offset)
            if options.json {
                try options.printJSON(entries)
                return
            }
            guard !entries.isEmpty else {
                print("no entries\(host.map { " from \($0)" } ?? "")")
                return
            }
            let now = Date()
            print(TextTable.render(["url", "variant", "bytes", "age", "last used", "hits"], entries.map { e in
                [e.url.value, e.variant.description, TextTable.bytes(e.size), CacheText.age(e.created, now: now),
                 CacheText.age(e.lastAccess, now: now) + " ago", "\(e.hits)"]
            }, left: [1], indent: ""))
        }
    }
}

struct CacheShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Every cached variant of one URL: size, dates, hits, validators, file."
    )

    @OptionGroup var options: CacheOptions

    @Argument(help: "The image URL (normalized as the cache keys it).")
    var url: String

    mutating func run() async throws {
        try await options.loadConfiguration()
        let normalized = try options.keyedURL(url)
        try CacheCommandFailure.run {
            let cache = try options.openForReading()
            defer { cache.close() }
            let entries = try cache.variants(of: normalized)
            if options.json {
                try options.printJSON(entries)
                return
            }
            guard !entries.isEmpty else { throw CacheCommandFailure("nothing is cached for \(normalized.value)") }
            print(normalized.value)
            let ttl = cache.limits.ttl
            let now = Date()
            for e in entries {
                print("")
                print(TextTable.render(["variant", e.variant.description], [
                    ["bytes", "\(e.size)"],
                    ["content type", e.contentType ?? "-"],
                    ["created", CacheText.date(e.created)],
                    ["validated", CacheText.date(e.validated) + (e.isStale(ttl: ttl, now: now) ? " (stale)" : "")],
                    ["last used", CacheText.date(e.lastAccess)],
                    ["hits", "\(e.hits)"],
                    ["etag", e.validators.etag ?? "-"],
                    ["last-modified", e.validators.lastModified ?? "-"],
                    ["sha256", e.checksum],
                    ["file", e.fileURL.path],
                ], left: [1]))
            }
        }
    }
}
