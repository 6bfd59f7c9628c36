import ArgumentParser
import ConsoleText
import Foundation
import Logging
import ThumbCache
import ThumbServer
import ThumbdConfig

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the thumbnail daemon: the HTTP API on 127.0.0.1:8080 by default.",
        discussion: HelpText.reflowed("""
            Settings come from the embedded defaults, then the YAML file (--config FILE or THUMBD_CONFIG),
            then environment variables: THUMBD_LISTEN (host:port), THUMBD_CACHE_DIR, THUMBD_ALLOW_NETWORKS
            (CIDRs exempt from the private-address guard), THUMBD_ADMIN_TOKEN, THUMBD_SIGNING_KEY,
            THUMBD_LOG_LEVEL, or any key as THUMBD_SECTION_KEY (download.timeout is THUMBD_DOWNLOAD_TIMEOUT).
            config/thumbd.yaml documents every key with its default.

            Try it:
              curl -o thumb.jpg \\
                'http://127.0.0.1:8080/v1/thumbnail?url=https://example.com/a.jpg&size=200'
              curl http://127.0.0.1:8080/v1/cache/stats
              curl http://127.0.0.1:8080/metrics
              open http://127.0.0.1:8080/ui in a browser: the cache inspector, read-only
              until given the admin token (on the page, or as /ui#token=…) to evict a URL
              or a host

            GET /healthz says the process is alive; GET /readyz whether to send it work (200, or 503
            draining). SIGTERM or SIGINT (Ctrl-C) stops it in order: /readyz turns 503 at once and every
            answer says Connection: close for server.drain_grace (5 s), then the listener closes,
            requests in flight finish (within server.drain_timeout), the cache index is written and the
            process exits 0. Under systemd (Type=notify) it reports READY=1 and STOPPING=1.

            One node of a fleet behind nginx: see config/nginx/thumbd.conf and the fleet.* settings
            (fleet.entry: prefetch items go through the balancer to each URL's home node).
            """)
    )

    @Option(name: .long, help: ArgumentHelp("YAML configuration file.", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Listen here instead (host:port); overrides the settings.", valueName: "HOST:PORT"))
    var listen: String?

    @Option(name: .long, help: ArgumentHelp("Disk cache directory; overrides the settings.", valueName: "DIR"))
    var cacheDir: String?

    @Flag(name: .long, help: "Keep the cache in memory only (no disk tier).")
    var memoryOnly = false

    func run() async throws {
        var environment = ProcessInfo.processInfo.environment
        if let listen { environment["THUMBD_LISTEN"] = listen }
        if let cacheDir { environment[CacheLocation.environmentVariable] = cacheDir }
        let loaded = try await loadSettings(file: config, environment: environment)
        var adjusted = loaded.daemon
        if memoryOnly { adjusted.cacheDirectory = nil }
        let settings = adjusted

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = settings.logLevel
            return handler
        }
        let logger = Logger(label: "thumbd")
        let daemon: Daemon
        do {
            daemon = try Daemon(settings: settings, logger: logger)
        } catch let error as CacheError {
            throw CleanExit.message("error: cannot open the cache at \(loaded.cacheLocation.url.path): \(error)")
        }
        let cacheText = settings.cacheDirectory.map { "\($0.path) (from \(loaded.cacheLocation.source.label))" } ?? "memory only"
        try await daemon.run { port in
            let address = "http://\(settings.server.host.contains(":") ? "[\(settings.server.host)]" : settings.server.host):\(port)"
            var metadata: Logger.Metadata = [
                "address": "\(address)",
                "cache": "\(cacheText)",
                "config": "\(loaded.file ?? "embedded defaults")",
            ]
            if settings.server.inspector { metadata["inspector"] = "\(address)/ui" }
            logger.notice("thumbd listening", metadata: metadata)
        }
    }
}
