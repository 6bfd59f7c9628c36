import Foundation
import ServiceLifecycle
import Synchronization
import ThumbCache
import ThumbPipeline

/// What the cache did since the daemon started. The hits and misses are answers to thumbnail
/// requests by the tier that answered, as `thumbd_thumbnail_responses_total` counts them: what an
/// operator sizes a cache by. The tiers' own lookups (a request can make several: the memory tier,
/// then the disk tier, then the original) are kept apart, named as lookups.
struct CacheActivity: Sendable, Equatable, Codable {
    /// Thumbnails answered from the memory tier, the disk tier, the shared tier (cache.shared).
    var memoryHits = 0
    var diskHits = 0
    var sharedHits = 0
    /// Thumbnails made for the answer.
    var misses = 0
    var memoryEvictions = 0
    var diskEvictions = 0
    /// The tiers' lookups, thumbnails and originals alike: memory tier hits, disk tier hits, and
    /// lookups neither had (the disk tier's misses; the memory tier's without a disk).
    var memoryLookupHits = 0
    var diskLookupHits = 0
    var lookupMisses = 0

    init(memoryHits: Int = 0, diskHits: Int = 0, sharedHits: Int = 0, misses: Int = 0, memoryEvictions: Int = 0, diskEvictions: Int = 0,
         memoryLookupHits: Int = 0, diskLookupHits: Int = 0, lookupMisses: Int = 0) {
        self.memoryHits = memoryHits
        self.diskHits = diskHits
        self.sharedHits = sharedHits
        self.misses = misses
        self.memoryEvictions = memoryEvictions
        self.diskEvictions = diskEvictions
        self.memoryLookupHits = memoryLookupHits
        self.diskLookupHits = diskLookupHits
        self.lookupMisses = lookupMisses
    }

    init(_ cache: TwoTierCache, answers: AnswerTally.Counts) {
        memoryHits = answers.memory
        diskHits = answers.disk
        sharedHits = answers.shared
        misses = answers.made
        let memory = cache.memory.stats
        memoryLookupHits = memory.hits
        memoryEvictions = memory.evictions
        if let disk = cache.disk {
            let activity = disk.activity
            diskLookupHits = activity.hits
            lookupMisses = activity.misses
            diskEvictions = activity.evictions
        } else {
            lookupMisses = memory.misses
        }
    }

    /// Answers that needed no thumbnail made here: from memory, disk or the shared tier.
    var hits: Int { memoryHits + diskHits + sharedHits }

    /// hits / answers, nil before the first answer.
    var hitRatio: Double? { hits + misses == 0 ? nil : Double(hits) / Double(hits + misses) }

    private static var counters: [WritableKeyPath<CacheActivity, Int>] {
        [\.memoryHits, \.diskHits, \.sharedHits, \.misses, \.memoryEvictions, \.diskEvictions,
         \.memoryLookupHits, \.diskLookupHits, \.lookupMisses]
    }

    /// What happened between `earlier` and this; a counter that went down (a cache reopened)
    /// counts from zero.
    func since(_ earlier: CacheActivity) -> CacheActivity {
        var result = CacheActivity()
        for counter in Self.counters {
            let (now, then) = (self[keyPath: counter], earlier[keyPath: counter])
            result[keyPath: counter] = now >= then ? now - then : now
        }
        return result
    }

    static func + (a: CacheActivity, b: CacheActivity) -> CacheActivity {
        var result = a
        for counter in counters { result[keyPath: counter] += b[keyPath: counter] }
        return result
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
    let answers: AnswerTally

    func run() async throws {
        // Cancelled at once on shutdown, rather than finishing its sleep.
        try? await cancelWhenGracefulShutdown {
            history.record(CacheActivity(cache, answers: answers.counts))
            while !Task.isCancelled {
                try await Task.sleep(for: history.interval)
                cache.recordMemoryHits()
                history.record(CacheActivity(cache, answers: answers.counts))
            }
        }
    }
}
