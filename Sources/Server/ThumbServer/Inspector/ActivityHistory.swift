import Foundation
import ServiceLifecycle
import Synchronization
import ThumbCache
import ThumbPipeline

/// The cache's lookups and evictions since it opened, as the tiers count them.
struct CacheActivity: Sendable, Equatable, Codable {
    var memoryHits = 0
    var diskHits = 0
    /// Lookups neither tier answered (the disk tier's misses; the memory tier's without a disk).
    var misses = 0
    var memoryEvictions = 0
    var diskEvictions = 0
    /// Local misses the shared tier (cache.shared) answered; they are among `misses`, as the local
    /// tiers count them.
    var sharedHits = 0

    init(memoryHits: Int = 0, diskHits: Int = 0, misses: Int = 0, memoryEvictions: Int = 0, diskEvictions: Int = 0, sharedHits: Int = 0) {
        self.sharedHits = sharedHits
        self.memoryHits = memoryHits
        self.diskHits = diskHits
        self.misses = misses
        self.memoryEvictions = memoryEvictions
        self.diskEvictions = diskEvictions
    }

    init(_ cache: TwoTierCache, shared: SharedTier?) {
        sharedHits = shared?.counts.hits ?? 0
        let memory = cache.memory.stats
        memoryHits = memory.hits
        memoryEvictions = memory.evictions
        if let disk = cache.disk {
            let activity = disk.activity
            diskHits = activity.hits
            misses = activity.misses
            diskEvictions = activity.evictions
        } else {
            misses = memory.misses
        }
    }

    var hits: Int { memoryHits + diskHits }

    /// hits / (hits + misses), nil before the first lookup.
    var hitRatio: Double? { hits + misses == 0 ? nil : Double(hits) / Double(hits + misses) }

    /// What happened between `earlier` and this; a counter that went down (a cache reopened)
    /// counts from zero.
    func since(_ earlier: CacheActivity) -> CacheActivity {
        func delta(_ now: Int, _ then: Int) -> Int { now >= then ? now - then : now }
        return CacheActivity(memoryHits: delta(memoryHits, earlier.memoryHits), diskHits: delta(diskHits, earlier.diskHits),
                             misses: delta(misses, earlier.misses), memoryEvictions: delta(memoryEvictions, earlier.memoryEvictions),
                             diskEvictions: delta(diskEvictions, earlier.diskEvictions), sharedHits: delta(sharedHits, earlier.sharedHits))
    }

    static func + (a: CacheActivity, b: CacheActivity) -> CacheActivity {
        CacheActivity(memoryHits: a.memoryHits + b.memoryHits, diskHits: a.diskHits + b.diskHits, misses: a.misses + b.misses,
                      memoryEvictions: a.memoryEvictions + b.memoryEvictions, diskEvictions: a.diskEvictions + b.diskEvictions,
                      sharedHits: a.sharedHits + b.sharedHits)
    }
}

/// The last hour of cache activity, one sample per interval, kept in memory (a fixed ring: an
/// hour at 10 s is 360 samples, a few kilobytes).
final class ActivityHistory: Sendable {
    struct Sample: Sendable, Equatable, Encodable {
        /// End of the interval, unix seconds.
        var time: Double
        var activity: CacheActivity

        private enum CodingKeys: String, CodingKey { case time }

        /// Flat: `{"time":…, "memoryHits":…, "diskHits":…, …}`.
        func encode(to encoder: any Encoder) throws {
            try activity.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(time, forKey: .time)
        }
    }

    let interval: Duration
    let capacity: Int
    private let state: Mutex<State>

    private struct State {
        var ring: [Sample] = []
        var next = 0
        var last: CacheActivity?
    }

    init(interval: Duration, span: Duration = .seconds(3600)) {
        self.interval = interval
        capacity = max(1, Int((span.secondsValue / max(interval.secondsValue, 0.001)).rounded()))
        state = Mutex(State())
    }

    /// Records what happened since the previous call; the first call only sets the baseline.
    func record(_ totals: CacheActivity, at time: Date = Date()) {
        state.withLock { s in
            defer { s.last = totals }
            guard let last = s.last else { return }
            let sample = Sample(time: time.timeIntervalSince1970, activity: totals.since(last))
            if s.ring.count < capacity {
                s.ring.append(sample)
            } else {
                s.ring[s.next] = sample
            }
            s.next = (s.next + 1) % capacity
        }
    }

    /// Oldest first.
    var samples: [Sample] {
        state.withLock { s in
            s.ring.count < capacity ? s.ring : Array(s.ring[s.next...] + s.ring[..<s.next])
        }
    }
}

/// Every interval until the daemon stops: samples the cache into `history`, and hands the
/// memory tier's hits to the disk tier (each entry's hits and last access then count them).
struct ActivitySampler: Service {
    let history: ActivityHistory
    let cache: TwoTierCache
    let shared: SharedTier?

    func run() async throws {
        // Cancelled at once on shutdown, rather than finishing its sleep.
        try? await cancelWhenGracefulShutdown {
            history.record(CacheActivity(cache, shared: shared))
            while !Task.isCancelled {
                try await Task.sleep(for: history.interval)
                cache.recordMemoryHits()
                history.record(CacheActivity(cache, shared: shared))
            }
        }
    }
}
