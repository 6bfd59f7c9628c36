import ArgumentParser
import ConsoleText
import Foundation

/// `thumbd-bench soak`: one daemon under a long mixed load, sampled, as a summary and a chart.
struct BenchSoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "A long mixed load on one daemon with small cache limits: RSS, fds, threads, cache and hit latency over time, as a summary and a chart.",
        discussion: HelpText.reflowed("""
            Starts on 127.0.0.1, in a scratch folder removed afterwards (--keep keeps
            it, with the daemon's and the origin's logs): an origin (python3 -m
            http.server over --corpus) and one `thumbd serve` (the thumbd built
            beside this program) with small cache limits, so that eviction runs all
            the time: THUMBD_CACHE_MEMORY_MAX_MIB=--memory-mib (2),
            THUMBD_CACHE_MEMORY_MAX_ENTRIES=--memory-entries (200),
            THUMBD_CACHE_DISK_MAX_MIB=--disk-mib (4),
            THUMBD_CACHE_ORIGINALS_MAX_MIB=--originals-mib (8), an admin token, the
            access log on (its default). It warms one thumbnail per photo at --size
            (the hot set), then runs the load for --minutes (30; fractions such as
            0.5 for a quick look).

            THE LOAD: four clients, each on its own kept-alive connection and paced,
            so the load is moderate and steady (the point is stability over time, not
            throughput) and the generator leaves the daemon its cores:
              hits      the hot set in turn, --hits-per-second (100); every 10th
                        request carries If-None-Match with the thumbnail's ETag and
                        must be answered 304;
              misses    a URL never asked before (a photo with a new query string),
                        --misses-per-second (4): a download, a decode, a store in
                        both tiers, and so evictions;
              prefetch  a job of 10 new URLs every 5 s (POST /v1/prefetch); one is
                        followed to its end (GET /v1/prefetch/{id}), the next is
                        cancelled 0.3 s after it starts (DELETE);
              inspector every 2 s one of /v1/cache/stats, /v1/cache/entries,
                        /ui/api/overview, /ui/api/entries, /ui/api/hosts, or an
                        admin eviction (DELETE /v1/cache/entries?url=) of a recent
                        miss.
            Every answer is checked against what was asked for: hits 200 from the
            memory or disk tier, 304 for the conditional ones, misses 200, 202/200
            for the prefetch calls (a cancelled job is what was asked; an item that
            failed is not), 200 for the inspector and the evictions. Anything else
            (a status, a problem's code, no answer) is an error, counted by kind.

            SAMPLES, every --sample-seconds (10): the daemon's RSS (VmRSS of
            /proc/PID/status), open file descriptors (/proc/PID/fd), threads
            (Threads), malloc's bytes in use and kept free (thumbd_heap_in_use_bytes,
            thumbd_heap_free_bytes: a climb of the first is something kept, of the
            second fragmentation), the tiers' entries and bytes, evictions, cache
            hits and misses (/metrics), and for the window since the last sample: the hits'
            p50 and p99 latency (each request timed by its client, from sending to
            the whole answer), requests/s, evictions/s and errors; and the CPU the
            daemon, the load (this program and the origin) and every other process
            used in the window, in cores. Other processes' work disturbs the latency
            figures: past 0.1 core on average the summary says so.

            TARGETS (issue 17):
              RSS flat after warm-up: the mean of the last 10% of samples within
                10% of the mean of the samples at the 20-30% mark;
              open file descriptors flat, by the same rule;
              no error but those the load asks for;
              p99 of hits < 5 ms in every window.

            OUTPUT: the summary (first and last samples, requests by kind, errors by
            kind, each target met or MISSED), the samples as CSV beside the chart
            (--chart soak.svg writes soak.csv), and the chart: an SVG of small
            multiples over time (RSS, fds, threads and CPU, cache entries and MiB, hit
            p50/p99 with the 5 ms line, requests/s and evictions/s with errors)
            drawn by gnuplot from the CSV with a script written beside it
            (soak.gp). Without gnuplot (apt-get install gnuplot-nox, or make
            bench-deps) the summary and the CSV are still written and the chart is
            reported skipped. --json prints every figure as one JSON object
            (snake_case keys), samples included.
            """)
    )

    @Option(help: "Minutes of load (fractions allowed: 0.5 for a quick look).")
    var minutes: Double = 30

    @Option(name: .customLong("sample-seconds"), help: "Seconds between samples (each sample closes a window).")
    var sampleSeconds: Double = 10

    @Option(help: "Where to write the chart (SVG); the samples go beside it as CSV, the gnuplot script as .gp.")
    var chart: String = "soak.svg"

    @Option(help: "Folder of photos the origin serves (JPEG, PNG, WebP; not recursive).")
    var corpus: String = "../shared/corpora/photos"

    @Option(help: "Thumbnail size of the hot set and of every miss.")
    var size: Int = 200

    @Option(name: .customLong("hits-per-second"), help: "Paced hot requests per second (one connection).")
    var hitsPerSecond: Double = 100

    @Option(name: .customLong("misses-per-second"), help: "New URLs asked per second (one connection).")
    var missesPerSecond: Double = 4

    @Option(name: .customLong("memory-mib"), help: "The memory tier's limit (THUMBD_CACHE_MEMORY_MAX_MIB).")
    var memoryMiB: Int = 2

    @Option(name: .customLong("memory-entries"), help: "The memory tier's entry limit (THUMBD_CACHE_MEMORY_MAX_ENTRIES).")
    var memoryEntries: Int = 200

    @Option(name: .customLong("disk-mib"), help: "The disk tier's limit for thumbnails (THUMBD_CACHE_DISK_MAX_MIB).")
    var diskMiB: Int = 4

    @Option(name: .customLong("originals-mib"), help: "The disk tier's limit for kept originals (THUMBD_CACHE_ORIGINALS_MAX_MIB).")
    var originalsMiB: Int = 8

    @Flag(help: "Keep the scratch folder (the daemon's cache and logs) and print where it is.")
    var keep = false

    @Flag(help: "Print every figure as one JSON object instead of the summary.")
    var json = false

    func validate() throws {
        guard minutes > 0, minutes <= 24 * 60 else { throw ValidationError("--minutes must be above 0 and at most 1440.") }
        guard (0.5...600).contains(sampleSeconds) else { throw ValidationError("--sample-seconds must be between 0.5 and 600.") }
        guard sampleSeconds <= minutes * 60 else { throw ValidationError("--sample-seconds must not be longer than the run (--minutes).") }
        guard (1...2048).contains(size) else { throw ValidationError("--size must be between 1 and 2048.") }
        guard (0.1...10_000).contains(hitsPerSecond) else { throw ValidationError("--hits-per-second must be between 0.1 and 10000.") }
        guard (0.01...1_000).contains(missesPerSecond) else { throw ValidationError("--misses-per-second must be between 0.01 and 1000.") }
        guard memoryMiB >= 1, memoryEntries >= 1, diskMiB >= 1, originalsMiB >= 1 else {
            throw ValidationError("--memory-mib, --memory-entries, --disk-mib and --originals-mib must be at least 1.")
        }
        guard chart.lowercased().hasSuffix(".svg") else { throw ValidationError("--chart must name an .svg file.") }
    }

    func run() throws {
        guard BenchHitOptions.corpusExists(corpus, benchmark: "bench soak") else { return }
        let runner = try BenchSoakRunner(options: self)
        defer { runner.finish() }
        let results = try runner.run()
        if json {
            try printBenchJSON(results)
        } else {
            print(results.render(), terminator: "")
        }
    }
}
