import ArgumentParser
import ConsoleText
import Foundation
import ObjectStorage
import ThumbCache
import ThumbFleet
import ThumbPipeline
import ThumbdConfig

/// `thumbd cache …`: look into the thumbnail cache, and change it when no daemon owns it.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and manage the thumbnail cache.",
        discussion: HelpText.reflowed("""
            The cache directory is, in order: --cache-dir, $THUMBD_CACHE_DIR, $XDG_CACHE_HOME/thumbd,
            ~/.cache/thumbd. Its index is a SQLite file (index.sqlite) that sqlite3 can read too.

            Reading commands (stats, ls, show, path, verify) work while thumbd serve runs: they open the
            index read-only. Changing commands (evict, clear, verify --repair) need the cache to
            themselves and are refused while another process owns it; go through the daemon then.

            Every command takes --json for tools; without it, aligned tables for people.
            Exit status: 0 ok, 1 failure (or, for path, nothing cached), 2 usage error.
            """),
        subcommands: [
            CacheStatsCommand.self, CacheListCommand.self, CacheShowCommand.self, CachePathCommand.self,
            CacheEvictCommand.self, CacheClearCommand.self, CacheVerifyCommand.self,
        ]
    )
}

/// Options every cache command shares.
struct CacheOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: "The cache directory (default: $THUMBD_CACHE_DIR, $XDG_CACHE_HOME/thumbd, ~/.cache/thumbd).")
    var cacheDirectory: String?

    @Option(name: .long, help: ArgumentHelp("The daemon's YAML configuration (default: $THUMBD_CONFIG), for its cache.dir.", valueName: "FILE"))
    var config: String?

    @Flag(help: "Print JSON for tools instead of tables.")
    var json = false

    /// The cache directory the configuration (file and THUMBD_* variables) names; set by `loadConfiguration`.
    var configured: (url: URL, source: CacheLocation.Source)?
    /// The `fleet.*` settings and `server.admin_token`, for the commands that go to every node of a fleet.
    var configuredFleet = FleetSettings()
    var configuredToken: String?
    /// Which query parameters keys leave out, and the fleet's shared tier with its store's settings.
    var configuredPipeline = PipelineSettings()
    var configuredS3 = S3Settings()

    enum CodingKeys: String, CodingKey {
        case cacheDirectory, config, json
    }

    var location: (url: URL, source: CacheLocation.Source) {
        if cacheDirectory != nil || configured == nil { return CacheLocation.resolution(explicit: cacheDirectory) }
        return configured!
    }

    /// Reads the same settings as `thumbd serve`, so the commands find the daemon's cache.
    mutating func loadConfiguration() async throws {
        let loaded = try await loadSettings(file: config)
        configured = loaded.cacheLocation
        configuredFleet = loaded.daemon.fleet
        configuredToken = loaded.daemon.server.adminToken
        configuredPipeline = loaded.daemon.pipeline
        configuredS3 = loaded.daemon.download.s3
    }

    /// A URL argument as the daemon keys it: normalized, and without the signature parameters its
    /// keys leave out (`sources.unkeyed_query`), so a presigned URL finds what its requests made.
    func keyedURL(_ text: String) throws -> NormalizedURL {
        let url = try normalizedURL(text)
        return configuredPipeline.unkeyedQuery.keyed(url) ?? url
    }

    /// Read-only: works beside a running owner, changes nothing.
    func openForReading() throws -> DiskCache {
        try open(.readOnly)
    }

    /// Owner: refused with a clear message when another process (the daemon) owns the cache, and
    /// when there is no cache there (evicting from nothing must not create a cache as a side effect).
    func openForChanging() throws -> DiskCache {
        guard DiskCache.exists(at: location.url) else {
            throw CacheCommandFailure(CacheError.noCache(directory: location.url.path).description)
        }
        return try open(.owner)
    }

    private func open(_ mode: CacheOpenMode) throws -> DiskCache {
        do {
            return try DiskCache.open(at: location.url, mode: mode)
        } catch {
            throw CacheCommandFailure(error.description)
        }
    }

    /// Encodes `value` as pretty JSON with ISO-8601 dates and sorted keys, then a newline.
    func printJSON<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// A failure the user can act on: printed as `error: message`, exit status 1.
struct CacheCommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension CacheCommandFailure {
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as CacheCommandFailure {
            FileHandle.standardError.write(Data("error: \(failure.description)\n".utf8))
            throw ExitCode.failure
        } catch let error as CacheError {
            FileHandle.standardError.write(Data("error: \(error.description)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// A URL argument, normalized the way the cache keys it.
func normalizedURL(_ text: String) throws -> NormalizedURL {
    do {
        return try NormalizedURL(text)
    } catch {
        throw ValidationError("not a cacheable URL: \(error.message)")
    }
}

/// Dates for people: "2026-11-21 20:15" in local time, and ages like "3 h" or "12 d".
enum CacheText {
    static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func age(_ date: Date, now: Date = Date()) -> String {
        let seconds = max(0, now.timeIntervalSince(date))
        switch seconds {
        case ..<60: return "\(Int(seconds)) s"
        case ..<3600: return "\(Int(seconds / 60)) min"
        case ..<86_400: return "\(Int(seconds / 3600)) h"
        default: return "\(Int(seconds / 86_400)) d"
        }
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        whole > 0 ? String(format: "%.1f %%", Double(part) * 100 / Double(whole)) : "-"
    }
}
