#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One sample of the soak, every --sample-seconds: the daemon's process (/proc), its cache
/// (/metrics), and what the clients saw since the last sample.
struct BenchSoakSample: Encodable, Sendable {
    /// Seconds since the load started, at the end of the window this sample closes.
    var seconds: Double
    var rssBytes: Int?
    var openFiles: Int?
    var threads: Int?
    /// malloc's bytes in use and the free bytes its arenas keep (`/metrics`, glibc only): a climb
    /// of the first is something kept, of the second fragmentation.
    var heapInUseBytes: Double?
    var heapFreeBytes: Double?
    /// Entries and bytes held by each tier (originals: the downloaded photos the disk tier keeps).
    var memoryEntries: Double?
    var memoryBytes: Double?
    var diskEntries: Double?
    var diskBytes: Double?
    var originalsEntries: Double?
    var originalsBytes: Double?
    /// Since the daemon started: evictions of both tiers, lookups either tier answered, lookups
    /// neither answered (each of those made a thumbnail or joined one being made).
    var evictions: Double?
    var cacheHits: Double?
    var cacheMisses: Double?
    /// The window's: every request of the load, per second; evictions per second.
    var requestsPerSecond: Double
    var evictionsPerSecond: Double?
    /// Hits answered in the window and their latency percentiles (nil without hits).
    var hits: Int
    var hitP50Ms: Double?
    var hitP99Ms: Double?
    /// Answers the load did not ask for, in the window.
    var errors: Int
    /// CPU in the window, in cores: the daemon's, this benchmark's own (the clients and the
    /// sampler) with the origin's, and every other process's on the machine, which is noise: a
    /// latency spike beside a busy machine says little about the daemon.
    var daemonCores: Double?
    var loadCores: Double?
    var othersCores: Double?

    /// Reads the daemon's process and metrics now, closing `window` (which lasted `windowSeconds`).
    static func take(pid: pid_t, port: Int, seconds: Double, window: BenchSoakWindow, windowSeconds: Double,
                     previous: BenchSoakSample?, cpu: BenchCPUUsage?) -> BenchSoakSample {
        let metrics = BenchMetrics.scrape(port: port)
        func tier(_ name: String, _ tier: String) -> Double? { metrics?.value(name, "tier=\"\(tier)\"") }
        let evictions = metrics?.value("thumbd_cache_evictions_total")
        var evictionRate: Double?
        if let evictions, let before = previous?.evictions ?? (previous == nil ? 0 : nil) {
            evictionRate = (evictions - before) / windowSeconds
        }
        return BenchSoakSample(
            seconds: seconds,
            rssBytes: BenchProc.statusNumber(pid, "VmRSS").map { $0 * 1024 },
            openFiles: BenchProc.openFileCount(pid),
            threads: BenchProc.statusNumber(pid, "Threads"),
            heapInUseBytes: metrics?.value("thumbd_heap_in_use_bytes"), heapFreeBytes: metrics?.value("thumbd_heap_free_bytes"),
            memoryEntries: tier("thumbd_cache_entries", "memory"), memoryBytes: tier("thumbd_cache_bytes", "memory"),
            diskEntries: tier("thumbd_cache_entries", "disk"), diskBytes: tier("thumbd_cache_bytes", "disk"),
            originalsEntries: tier("thumbd_cache_entries", "originals"), originalsBytes: tier("thumbd_cache_bytes", "originals"),
            evictions: evictions, cacheHits: metrics?.value("thumbd_cache_hits_total"),
            cacheMisses: tier("thumbd_cache_misses_total", "disk"),
            requestsPerSecond: Double(window.requestCount) / windowSeconds, evictionsPerSecond: evictionRate,
            hits: window.hitLatenciesMs.count,
            hitP50Ms: BenchStats.percentile(window.hitLatenciesMs, 50), hitP99Ms: BenchStats.percentile(window.hitLatenciesMs, 99),
            errors: window.errorCount,
            daemonCores: cpu?.cores(of: "thumbd"), loadCores: cpu.map { ($0.cores(of: "load") ?? 0) + ($0.cores(of: "origin") ?? 0) },
            othersCores: cpu?.othersCores)
    }
}
