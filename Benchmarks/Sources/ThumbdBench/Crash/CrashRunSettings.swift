import Foundation

/// What one crash run does: how many rounds, how long each round's load lasts before the kill, how
/// the load looks, and the small limits that keep the daemon evicting. `thumbd-bench crash` and the
/// test suite's rounds (ThumbdBenchTests.CrashRoundTests) both fill one in.
struct CrashRunSettings: Sendable {
    /// Rounds of load, SIGKILL, restart and checks.
    var rounds = 50
    /// Seeds every random choice the run makes (load durations, URLs, sizes, revisits). The kill
    /// still lands wherever the daemon happens to be at that instant: the seed replays the plan,
    /// not the machine's timing.
    var seed: UInt64 = 17
    /// The folder the origin serves (photos: JPEG, PNG, WebP; not recursive).
    var images: String
    /// The `thumbd` executable to run as the daemon and for `thumbd cache verify`.
    var thumbd: String
    /// A scratch folder for the cache directory and every log.
    var scratch: String
    /// Seconds of load before the kill, drawn uniformly for each round.
    var loadSeconds: ClosedRange<Double> = 0.5...3
    /// Kept-alive client connections asking for thumbnails (the miss storm).
    var connections = 4
    /// URLs in the prefetch job each round starts.
    var prefetchURLs = 60
    /// Share of the storm's requests that ask again for a URL already answered (hits, and misses
    /// again once eviction has taken it).
    var revisitShare = 0.2
    /// Seconds between two admin evictions (DELETE /v1/cache/entries?url=) of an answered URL.
    var deleteInterval = 0.25
    /// The daemon's limits, in MiB: small, so both tiers evict all through every round.
    var memoryMiB = 1
    var diskMiB = 1
    var originalsMiB = 8
    /// Entries written into the cache before the first start (`DiskCache.bulkFill`), so the rounds
    /// run against a big cache; the disk limit is then their size plus `diskMiB`.
    var prefillEntries = 0
    /// Progress lines ("round 3: ..."), to stderr in the bench, nowhere in the tests.
    var say: @Sendable (String) -> Void = { _ in }

    /// The admin token the daemon is given, for the load's evictions.
    static let adminToken = "crash-round-token"

    /// THUMBD_* settings beside BenchDaemon's (listen, cache directory, loopback origin allowed).
    /// No drain on the final SIGTERM: nothing waits for this daemon's answers then.
    var daemonEnvironment: [String: String] {
        ["THUMBD_CACHE_MEMORY_MAX_MIB": String(memoryMiB),
         "THUMBD_CACHE_DISK_MAX_MIB": String(diskMiB),
         "THUMBD_CACHE_ORIGINALS_MAX_MIB": String(originalsMiB),
         "THUMBD_ADMIN_TOKEN": Self.adminToken,
         "THUMBD_SERVER_DRAIN_GRACE": "0",
         "THUMBD_PREFETCH_MAX_URLS_PER_JOB": String(max(1000, prefetchURLs))]
    }

    var cacheDirectory: String { (scratch as NSString).appendingPathComponent("cache") }
    var logs: String { (scratch as NSString).appendingPathComponent("logs") }
}
