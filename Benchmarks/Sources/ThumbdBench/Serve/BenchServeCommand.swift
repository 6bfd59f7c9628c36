import ArgumentParser
import ConsoleText
import Foundation

/// `thumbd-bench serve`: the daemon's serving figures, measured against nginx in the same run.
struct BenchServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Measure `thumbd serve`: hits/s against nginx, p99 under a miss storm, RSS over a long mixed load.",
        discussion: HelpText.reflowed("""
            Starts everything itself on 127.0.0.1, in a scratch folder removed
            afterwards (--keep keeps it, with every log): an origin (python3 -m
            http.server over --corpus), two daemons (this very thumbd binary,
            `thumbd serve`), nginx, and wrk as the load. Needs wrk and nginx from
            Debian (apt-get install wrk nginx, or make bench-deps); without nginx
            the ratios are left out.

            The daemons are configured only through the environment (the caller's
            THUMBD_* variables are dropped): THUMBD_ALLOW_NETWORKS=127.0.0.0/8 so
            they may fetch from the loopback origin, the access log at its default
            (on, to the daemon's log file) or off (THUMBD_SERVER_ACCESS_LOG=false),
            a fresh THUMBD_CACHE_DIR each. nginx gets a configuration written for
            the run: worker_processes = cores, access_log `combined` to a file (or
            off: both servers alike), sendfile, keep-alive (keepalive_requests
            1000000), pid, logs and temp folders in the scratch folder.

            HOT SET: one thumbnail per photo at --size (format auto, default
            quality), asked of the memory daemon twice (a miss, then a memory hit),
            of the disk daemon twice (a miss, then a disk hit); the memory daemon's
            bytes are written as static files for nginx, and nginx's answers are
            checked byte for byte.

            HITS: wrk -t<threads> -c<connections> for --duration seconds (after
            --warmup seconds not counted) against nginx, the daemon with its memory
            tier, and a daemon run with THUMBD_CACHE_MEMORY_MAX_MIB=0 and
            THUMBD_CACHE_MEMORY_MAX_ENTRIES=0, whose every hit is read from the disk
            tier (the files are in the page cache, as nginx's are). --rounds rounds,
            the servers interleaved; the median run of each is shown. Four cases by
            default: both access logs on, then both off (the servers are restarted
            between), each with two loads: every request for the first thumbnail
            (wrk runs no script per request, its cheapest load) and the hot set in
            turn (a wrk Lua call per request, the same for every server).

            wrk runs on the same cores as the servers, so each case reports wrk's
            cores and its CPU per request: a case where wrk used all the CPU its
            threads could (0.9 core per thread, or every core) is marked as limited
            by the load generator, and its ratio says nothing about the servers.
            Targets, for every case: memory hits >= 1.0x nginx's requests/s, disk
            hits >= 0.8x.

            STORM: the hot set with wrk -t1 -c<hot-connections> for --duration
            seconds, each connection pausing --hot-delay-ms before each request (a
            paced load of at most connections x 1000 / delay requests/s, so the
            figure is the latency of a hit, not of a server saturated by the hits
            themselves), alone, then while a second wrk (-c<storm-connections>) asks
            for thumbnails never made before (every request a new size or quality of
            one of the photos of 2 MP or more) so that the CPU pool is saturated.
            Reported: wrk's latency percentiles of the hot requests, the jobs
            started and misses answered per second (/metrics), the machine's busy
            share and the daemon's cores, per thread. Then the hot connections
            once more without the pause, still under the storm. The daemon runs with
            its access log on (off only with --access-log off). Target: p99 of the
            paced hot requests under the storm < 5 ms.

            CPU: for each measured run, the busy share of all cores, the cores used
            by each server, wrk, and the daemon's threads (by name), and by
            processes this benchmark did not start ("others": other work on the
            machine disturbs the figures, and a run where it passes 0.1 core is
            noted).

            RSS: a fresh daemon under hits and misses together for --rss-duration
            seconds (default 300; --rss-duration 60 for a quick look), its memory
            tier limited to --rss-memory-mib (default 8, full within the first
            minute, so that a tier still filling is not taken for a leak); VmRSS
            and the tiers' bytes sampled every --rss-interval seconds. Reported:
            RSS after warm-up (the first sample at 20% of the run), at the end, the
            largest after warm-up, and the trend. Decode buffers make single
            samples swing by tens of MiB, so the growth held to the target compares
            medians: of the samples from 20% to 30% of the run and of the last 10%;
            it is also given less the memory tier's own growth. Target: < 10%.

            --json prints every figure as one JSON object (snake_case keys).
            """)
    )

    @OptionGroup var hits: BenchHitOptions

    @Option(name: .customLong("hot-connections"), help: "wrk connections measuring hit latency during the storm.")
    var hotConnections: Int = 4

    @Option(name: .customLong("hot-delay-ms"),
            help: "Pause of each hot connection before each request during the storm runs (0: as fast as answered).")
    var hotDelayMs: Int = 2

    @Option(name: .customLong("storm-connections"), help: "wrk connections asking for new thumbnails during the storm.")
    var stormConnections: Int = 16

    @Option(name: .customLong("rss-duration"), help: "Seconds of mixed load while RSS is sampled.")
    var rssDuration: Int = 300

    @Option(name: .customLong("rss-interval"), help: "Seconds between RSS samples (default: 1/60 of the run, 1 to 5 s).")
    var rssInterval: Double?

    enum AccessLog: String, ExpressibleByArgument, CaseIterable {
        case on, off, both

        /// Whether the logs are on, for each pass in turn.
        var passes: [Bool] { self == .both ? [true, false] : [self == .on] }
    }

    @Option(name: .customLong("access-log"),
            help: "Both servers' access logs for the hit runs: on (the defaults operators run), off, or both (each in turn).")
    var accessLog: AccessLog = .both

    enum URLs: String, ExpressibleByArgument, CaseIterable {
        case one, rotation, both

        var modes: [BenchServeResults.RequestMode] {
            switch self {
            case .one: [.oneURL]
            case .rotation: [.rotation]
            case .both: [.oneURL, .rotation]
            }
        }
    }

    @Option(help: "What the hit runs ask for: one thumbnail (no wrk script per request), the hot set in turn (rotation), or both.")
    var urls: URLs = .both

    @Option(name: .customLong("rss-memory-mib"), help: "The RSS daemon's memory-tier limit (THUMBD_CACHE_MEMORY_MAX_MIB).")
    var rssMemoryMiB: Int = 8

    @Flag(name: .customLong("no-hits"), help: "Skip the hit runs against nginx.")
    var noHits = false

    @Flag(name: .customLong("no-storm"), help: "Skip the latency under a miss storm.")
    var noStorm = false

    @Flag(name: .customLong("no-rss"), help: "Skip the RSS run.")
    var noRSS = false

    func validate() throws {
        guard (1...4096).contains(hits.size) else { throw ValidationError("--size must be between 1 and 4096.") }
        guard hotConnections >= 1, stormConnections >= 1 else { throw ValidationError("connection counts must be at least 1.") }
        guard (0...10_000).contains(hotDelayMs) else { throw ValidationError("--hot-delay-ms must be between 0 and 10000.") }
        guard (5...86_400).contains(rssDuration) else { throw ValidationError("--rss-duration must be between 5 and 86400 seconds.") }
        if let rssInterval, !(0.2...600).contains(rssInterval) { throw ValidationError("--rss-interval must be between 0.2 and 600 seconds.") }
        guard (1...1_048_576).contains(rssMemoryMiB) else { throw ValidationError("--rss-memory-mib must be at least 1.") }
    }

    func run() throws {
        guard hits.corpusExists(benchmark: "bench serve") else { return }
        var runner = try BenchServeRunner(options: self)
        defer { runner.cleanUp() }
        let results = try runner.run()
        try hits.print(results) { results.render() }
    }
}
