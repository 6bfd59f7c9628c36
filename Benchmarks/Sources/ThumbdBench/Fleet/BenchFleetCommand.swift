import ArgumentParser
import ConsoleText
import Foundation
import TestSupport

/// `thumbd-bench fleet`: three nodes behind nginx with the shipped config, against nginx serving
/// the same thumbnails as static files, and what a node's kill -9 costs the fleet.
struct BenchFleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Measure a fleet behind nginx (config/nginx/thumbd.conf): hits/s against static nginx, failover after kill -9, duplication, restart, and a shared tier that keeps a new node warm.",
        discussion: HelpText.reflowed("""
            Starts everything itself on 127.0.0.1, in a scratch folder removed
            afterwards (--keep keeps it, with every log), and stops it all at the
            end, also on failure: an origin (python3 -m http.server over --corpus),
            three nodes (this very thumbd binary, `thumbd serve`), three nginx and
            wrk as the load. Needs nginx and wrk from Debian (apt-get install nginx
            wrk, or make bench-deps).

            NODES: configured only through the environment (the caller's THUMBD_*
            variables are dropped): THUMBD_LISTEN, THUMBD_CACHE_DIR (one directory
            each, kept across the restart), THUMBD_ALLOW_NETWORKS=127.0.0.0/8 (the
            loopback origin), THUMBD_FLEET_ENTRY (the fleet's nginx). Everything
            else is the default, the access log (one line per request, to the
            node's log file) included: the fleet as operators run it.

            NGINX: worker_processes = cores, sendfile, keep-alive, and the access
            log on (combined format, to a file) for every nginx, as operators run
            it. "fleet": config/nginx/thumbd.conf as shipped (hash $arg_url
            consistent, retries on error/timeout/503), only its addresses and paths
            changed. "fleet + edge cache": the same with the shipped
            thumbd-edge-cache.conf included. "static": the peer, nginx serving the
            very same thumbnail bytes as static files (checked byte for byte).

            WARM-UP: each photo's thumbnail at --size and at twice --size, asked
            at the same moment (as a page asks for 1x and 2x), 8 at a time,
            through the fleet's nginx; then --size once more, which must be a
            memory hit. Thumbnail URLs are written with the canonical query
            (url, size, fit=cover, format=auto, q=82, in URLSigner's order), so
            nginx hashes every request for a photo the same way. The edge cache is
            warmed by asking each URL until X-Edge-Cache says HIT.

            HITS: wrk -t<threads> -c<connections> for --duration seconds (after
            --warmup seconds not counted) against static nginx, the fleet, and the
            fleet with its edge cache, going round the --size thumbnails of every
            photo; --rounds rounds, the three interleaved; the median run of each
            is shown, with its ratio to static nginx's median. Target: the edge
            cache >= 0.9x static. The fleet without the edge cache has no target:
            each request is answered by two processes (nginx and a node) on the
            same cores. CPU: the cores used by the front nginx (master and
            workers), the three nodes together, wrk, and by processes this
            benchmark did not start ("others"), from each process's own counters
            (/proc/PID/stat); "CPU busy" is their sum over all cores (the
            machine-wide /proc/stat undercounts in VMs whose cores idle and wake
            often; JSON keeps it as machine_busy_percent). The nodes' answers by
            cache tier (/metrics: none for edge hits). wrk runs on the same cores:
            a run where wrk uses >= 0.75 of a core while the cores are >= 90%
            busy is marked "generator-bound": its req/s is the load generator's
            limit as much as the server's, and ratios to it flatter the slower
            server. A run whose p99 is over 10x its p50 while the cores are under
            80% busy is noted: its requests wait on something other than CPU.

            FAILOVER: a steady load through the fleet's nginx (no edge cache) over
            every warm photo: --failover-connections kept-alive connections, each
            pausing --failover-pause-ms before each request, every request's
            outcome recorded. After --failover-before seconds the node holding
            the most photos is killed with SIGKILL; the load goes on for
            --failover-after seconds. Reported:
            - failed requests: answers that are not 200, and socket errors,
              over the whole load (goal 0);
            - failover time: from the kill until every photo the dead node held
              has been answered 200 by a request sent after the kill (hence by
              another node); "-" when some photo was not within the run;
            - latency (p50, p99, worst) of the requests before the kill, of those
              in flight during the failover window (answered after the kill and
              sent before the window's end), and of those after it; the worst
              answer for one of the dead node's photos in the window (the
              neighbour making its thumbnail); misses answered after the kill.

            RESTART: the killed node started again on its old cache directory:
            seconds from its start until /readyz answers 200 (polled every 5 ms;
            beside it, the nodes' first start on an empty directory). Once nginx
            takes it back (the shipped fail_timeout after its last failure), each
            of its photos is asked through nginx once: "came home" counts those
            the restarted node answered (its /metrics), by tier (goal: all, from
            disk, no origin request).

            DUPLICATION: entries held on the nodes' disks over distinct entries
            (url and variant, from each node's GET /v1/cache/entries; originals
            count as entries): after the warm-up (goal 1.0, every photo on one
            node) and after the failover and the restart (the copies the
            neighbours made while the node was down stay until evicted).
            ORIGIN REQUESTS: GETs per photo in the origin's log: after the warm-up
            (goal 1 per photo for the whole fleet, both sizes sharing one
            download) and at the end (a dead node's photo is fetched again by its
            neighbour).

            SHARED TIER (--shared-tier; needs SeaweedFS: make s3-deps): three new
            nodes with one shared tier (cache.shared on SeaweedFS, on loopback)
            behind a new front with the shipped config; both sizes of every photo
            through it, until every thumbnail made has been written to the tier.
            Then a steady load over both sizes (--failover-connections,
            --failover-pause-ms): after --failover-before seconds the node holding
            the most photos is killed with SIGKILL; 3 s later an empty node (a new
            cache directory) starts in its place; once nginx takes it back, a
            fourth node starts and nginx is reloaded with four nodes (SIGHUP); 5 s
            after the fourth node's first answer the load stops. Reported, by
            stage: requests, failures (goal 0), answers by X-Cache (memory, disk,
            shared, miss), latency; what the replacement and the fourth node
            answered and downloaded (goal: from the tier, 0 origin bytes); origin
            GETs after the warm-up (goal 0: no original downloaded again). A
            request whose kept-alive connection nginx closed while idle (the
            reload's old workers do) is sent again on a new connection, as every
            HTTP client does, and counted apart. Last, one photo is evicted on a
            node that holds it (DELETE /v1/cache/entries?url=): its objects must
            leave the tier (counted by listing the bucket) and the fleet's next
            answer for it must be made anew (X-Cache: miss).
            auto: the phase runs when SeaweedFS is installed; only: it alone runs
            (no hits, failover or restart); off: it does not run.

            --json prints every figure as one JSON object (snake_case keys).
            """)
    )

    @OptionGroup var hits: BenchHitOptions

    @Option(name: .customLong("failover-connections"), help: "Kept-alive connections of the failover load.")
    var failoverConnections: Int = 8

    @Option(name: .customLong("failover-pause-ms"), help: "Pause of each failover connection before each request (0: as fast as answered).")
    var failoverPauseMs: Int = 2

    @Option(name: .customLong("failover-before"), help: "Seconds of failover load before the kill.")
    var failoverBefore: Int = 3

    @Option(name: .customLong("failover-after"), help: "Seconds of failover load after the kill.")
    var failoverAfter: Int = 10

    enum SharedTierPhase: String, ExpressibleByArgument, CaseIterable {
        case auto, only, off
    }

    @Option(name: .customLong("shared-tier"), help: "The SHARED TIER phase: auto (when SeaweedFS is installed: make s3-deps), only, or off.")
    var sharedTier: SharedTierPhase = .auto

    /// Whether the SHARED TIER phase runs.
    var runsSharedTier: Bool {
        switch sharedTier {
        case .only: true
        case .off: false
        case .auto: S3TestServer.ready
        }
    }

    func validate() throws {
        guard (16...2048).contains(hits.size) else { throw ValidationError("--size must be between 16 and 2048 (twice it is asked too).") }
        guard (1...256).contains(failoverConnections) else { throw ValidationError("--failover-connections must be between 1 and 256.") }
        guard (0...1000).contains(failoverPauseMs) else { throw ValidationError("--failover-pause-ms must be between 0 and 1000.") }
        guard (1...600).contains(failoverBefore), (1...600).contains(failoverAfter) else {
            throw ValidationError("--failover-before and --failover-after must be between 1 and 600 seconds.")
        }
        if sharedTier == .only, !S3TestServer.ready {
            throw ValidationError(S3TestServer.missing.replacingOccurrences(of: "tests are SKIPPED", with: "shared-tier phase cannot run"))
        }
    }

    func run() throws {
        guard hits.corpusExists(benchmark: "bench fleet") else { return }
        var runner = try BenchFleetRunner(options: self)
        defer { runner.cleanUp() }
        let results = try runner.run()
        try hits.print(results) { results.render() }
    }
}
