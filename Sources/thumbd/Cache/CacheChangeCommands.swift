import ArgumentParser
import Foundation
import ThumbCache

struct CacheEvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Remove every cached variant (and the original) of a URL. Refused while a daemon owns the cache."
    )

    @OptionGroup var options: CacheOptions

    @Argument(help: "The image URL.")
    var url: String

    mutating func run() async throws {
        try await options.loadConfiguration()
        let normalized = try normalizedURL(url)
        try CacheCommandFailure.run {
            let cache = try options.openForChanging()
            defer { cache.close() }
            let removed = try cache.removeAll(url: normalized)
            if options.json {
                try options.printJSON(["url": normalized.value, "removed": "\(removed)"])
            } else {
                print(removed == 0 ? "nothing was cached for \(normalized.value)" : "evicted \(removed) entr\(removed == 1 ? "y" : "ies") of \(normalized.value)")
            }
        }
    }
}

struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Remove every entry. Refused while a daemon owns the cache."
    )

    @OptionGroup var options: CacheOptions

    mutating func run() async throws {
        try await options.loadConfiguration()
        try CacheCommandFailure.run {
            let cache = try options.openForChanging()
            defer { cache.close() }
            let before = cache.usage
            try cache.clear()
            let entries = before.thumbnails.entries + before.originals.entries
            let bytes = before.thumbnails.bytes + before.originals.bytes
            if options.json {
                try options.printJSON(["removed_entries": entries, "removed_bytes": bytes])
            } else {
                print("cleared \(entries) entries (\(TextTable.bytes(bytes))) from \(options.location.url.path)")
            }
        }
    }
}

struct CacheVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check every file against its checksum and the index against the files.",
        discussion: "Exit status 1 when problems are found (after --repair: when they could not be fixed)."
    )

    @OptionGroup var options: CacheOptions

    @Flag(help: "Fix what is found: drop damaged entries, remove stray files, rewrite metadata. Needs the cache to itself.")
    var repair = false

    mutating func run() async throws {
        try await options.loadConfiguration()
        try CacheCommandFailure.run {
            let cache = try repair ? options.openForChanging() : options.openForReading()
            defer { cache.close() }
            let report = try cache.verify(repair: repair)
            if options.json {
                try options.printJSON(report)
            } else {
                print("checked \(report.checkedEntries) entries (\(TextTable.bytes(report.checkedBytes)))")
                for problem in report.problems { print("  \(problem)") }
                if report.isClean {
                    print("no problems")
                } else {
                    print("\(report.problems.count) problem\(report.problems.count == 1 ? "" : "s")\(report.repaired ? ", repaired" : "; run with --repair to fix")")
                }
            }
            if !report.isClean && !report.repaired { throw ExitCode.failure }
        }
    }
}
