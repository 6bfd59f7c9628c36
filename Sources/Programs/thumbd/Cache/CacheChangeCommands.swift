import ArgumentParser
import ConsoleText
import Foundation
import ThumbCache
import ThumbFleet
import ThumbPipeline

struct CacheEvictCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evict",
        abstract: "Remove every cached variant (and the original) of a URL, or every entry of a host.",
        discussion: HelpText.reflowed("""
            On this machine's cache directory: refused while a daemon owns it (go through the daemon).
            With --nodes (or the fleet.nodes setting): sent to every node's API with the admin token,
            so copies a failover left on other nodes go too; a node that does not answer is reported
            and the others are still evicted (exit status 1).

            With cache.shared, a URL's thumbnails are removed from the shared tier too (a host's are
            not: the tier does not group them by host). A presigned URL names its object's entries.

              thumbd cache evict https://img.example/p/1.jpg
              thumbd cache evict --host img.example \\
                  --nodes http://10.0.0.1:8080,http://10.0.0.2:8080
            """)
    )

    @OptionGroup var options: CacheOptions
    @OptionGroup var fleet: FleetOptions

    @Argument(help: "The image URL.")
    var url: String?

    @Option(help: ArgumentHelp("With nodes: their admin token (default: server.admin_token, $THUMBD_ADMIN_TOKEN).", valueName: "TOKEN"))
    var token: String?

    @Option(help: ArgumentHelp("Every entry of this host instead (as `cache ls` shows it: lower-case, :port when not the default).",
                               valueName: "HOST"))
    var host: String?

    func validate() throws {
        guard (url == nil) != (host == nil) else { throw ValidationError("give a URL or --host HOST (one of them)") }
        if let host, host.isEmpty || host.contains(where: { $0 == "/" || $0 == "@" || $0.isWhitespace }) {
            throw ValidationError("--host must be a host name like img.example or img.example:8443, not \"\(host)\"")
        }
    }

    mutating func run() async throws {
        try await options.loadConfiguration()
        let pipeline = options.configuredPipeline
        let scope: CacheScope = try url.map { .url(try options.keyedURL($0)) } ?? .host(host!.lowercased())
        if let nodes = try fleet.nodeList(options) {
            let token = self.token ?? options.configuredToken
            let report = FleetEvictionReport(scope: "\(scope)", nodes: try await FleetOptions.withNodes(nodes, settings: options.configuredFleet) {
                await $0.evict(scope, token: token)
            })
            if options.json { try options.printJSON(report) } else { print(report.text) }
            if report.failedNodes > 0 { throw ExitCode.failure }
            return
        }
        try CacheCommandFailure.run {
            let cache = try options.openForChanging()
            defer { cache.close() }
            let removed = try cache.removeAll(scope)
            if options.json {
                // As before --host existed: {"url": …, "removed": …}; a host is {"host": …, "removed": …}.
                var report = ["removed": "\(removed)"]
                switch scope {
                case .url(let url): report["url"] = url.value
                case .host(let host): report["host"] = host
                case .entry(let key): report["url"] = key.url.value
                }
                try options.printJSON(report)
            } else {
                print(removed == 0 ? "nothing was cached for \(scope)" : "evicted \(removed) entr\(removed == 1 ? "y" : "ies") of \(scope)")
            }
        }
        if case .url(let url) = scope, let settings = pipeline.shared {
            let shared = SharedTier.standalone(settings, s3: options.configuredS3)
            do {
                let removed = try await shared.evict(url)
                await shared.shutdown()
                if !options.json { print("removed \(removed) object\(removed == 1 ? "" : "s") from the shared tier \(settings.description)") }
            } catch {
                await shared.shutdown()
                FileHandle.standardError.write(Data("error: the shared tier \(settings.description) could not be reached: \(error)\n".utf8))
                throw ExitCode.failure
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
