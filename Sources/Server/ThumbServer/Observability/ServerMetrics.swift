import Prometheus
import Synchronization
import ThumbCache
import ThumbPipeline

/// The daemon's Prometheus registry and the instruments the HTTP side owns. The pipeline's and
/// downloader's instruments are made through `factory`, so everything lands in one registry.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory

    /// Thumbnail answers by where they came from: memory, disk, miss, shared.
    private let served: [PipelineResult.Source: Counter]
    /// The same, readable: the inspector's hit ratio.
    let answers = AnswerTally()
    /// Request durations by route and status class, made up front so the hot path only indexes.
    private let durations: [DurationHistogram]
    private let cacheGauges: CacheGauges
    let heap: HeapMetrics
    let uploads: UploadMetrics
    /// Fallback pictures answered, by the failure they stood in for (made when first needed).
    private let fallbacks = Mutex<[String: Counter]>([:])

    static let routes = ["thumbnail", "cache", "metrics", "healthz", "prefetch", "uploads", "other"]
    static let statusClasses = ["2xx", "3xx", "4xx", "5xx"]

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.buckets
        self.factory = factory
        var served: [PipelineResult.Source: Counter] = [:]
        for source in [PipelineResult.Source.memory, .disk, .miss, .shared] {
            served[source] = registry.makeCounter(descriptor: metric("thumbnail_responses", unit: "total", help: "Thumbnails answered, by the tier that had them (miss: made now)"),
                                                  labels: [("cache", source.rawValue)])
        }
        self.served = served
        durations = Self.routes.flatMap { route in
            Self.statusClasses.map { status in
                registry.makeDurationHistogram(descriptor: metric("http_request_duration", unit: "seconds",
                                                                  help: "HTTP request durations, from head received to response returned"),
                                               labels: [("route", route), ("status", status)], buckets: Self.buckets)
            }
        }
        cacheGauges = CacheGauges(registry: registry)
        heap = HeapMetrics(registry: registry)
        uploads = UploadMetrics(registry: registry)
    }

    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
    ]

    func served(_ source: PipelineResult.Source) {
        served[source]?.increment()
        answers.count(source)
    }

    func fellBack(_ code: String) {
        let counter = fallbacks.withLock { counters in
            if let counter = counters[code] { return counter }
            let counter = registry.makeCounter(descriptor: metric("fallback_responses", unit: "total",
                                                                  help: "Fallback pictures answered where a photo could not be had, by why"),
                                               labels: [("code", code)])
            counters[code] = counter
            return counter
        }
        counter.increment()
    }

    func recordRequest(route: Int, status: Int, duration: Duration) {
        let statusClass = min(max(status / 100 - 2, 0), 3)
        durations[route * Self.statusClasses.count + statusClass].record(duration)
    }

    /// The exposition text, with the cache's gauges read just now.
    func exposition(cache: TwoTierCache) -> [UInt8] {
        cacheGauges.update(cache: cache)
        heap.update()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }
}

/// Tier sizes and the tiers' own hit/miss/eviction counts, read from the cache at scrape time
/// (the tiers count for themselves; copying their counters here keeps the hot path free of it).
final class CacheGauges: Sendable {
    private let entries: [String: Gauge]
    private let bytes: [String: Gauge]
    private let limits: [String: Gauge]
    private let counters: [String: Counter]
    private let previous = Mutex<[String: Int]>([:])
    /// The repair after an unclean stop, which runs while the node serves: how much is done.
    private let repairDone: Gauge
    private let repairChecksummed: Gauge
    /// The trim of a cache found over its limits at start, which runs while the node serves.
    private let trimDone: Gauge
    private let trimOver: Gauge

    init(registry: PrometheusCollectorRegistry) {
        repairDone = registry.makeGauge(descriptor: metric("cache_repair_progress", unit: "ratio",
                                                           help: "Share of the disk cache's folders checked since an unclean stop (1: none left)"))
        repairChecksummed = registry.makeGauge(descriptor: metric("cache_repair_checksummed_files",
                                                                  help: "Files the repair after an unclean stop has checksummed"))
        trimDone = registry.makeGauge(descriptor: metric("cache_trim_progress", unit: "ratio",
                                                         help: "Share of the excess trimmed since the disk cache opened over its limits (1: none left)"))
        trimOver = registry.makeGauge(descriptor: metric("cache_over_limits", unit: "bytes",
                                                         help: "Bytes the disk cache holds over its limits (while the trim after a lowered limit runs)"))
        let tiers = ["memory", "disk", "originals"]
        var entries: [String: Gauge] = [:], bytes: [String: Gauge] = [:], limits: [String: Gauge] = [:]
        for tier in tiers {
            entries[tier] = registry.makeGauge(descriptor: metric("cache_entries", help: "Entries held, by tier"), labels: [("tier", tier)])
            bytes[tier] = registry.makeGauge(descriptor: metric("cache", unit: "bytes", help: "Bytes held, by tier"), labels: [("tier", tier)])
            limits[tier] = registry.makeGauge(descriptor: metric("cache_limit", unit: "bytes", help: "Byte limit, by tier"), labels: [("tier", tier)])
        }
        var counters: [String: Counter] = [:]
        for tier in ["memory", "disk"] {
            counters["\(tier).hits"] = registry.makeCounter(descriptor: metric("cache_hits", unit: "total", help: "Lookups the tier answered"), labels: [("tier", tier)])
            counters["\(tier).misses"] = registry.makeCounter(descriptor: metric("cache_misses", unit: "total", help: "Lookups the tier could not answer"), labels: [("tier", tier)])
            counters["\(tier).evictions"] = registry.makeCounter(descriptor: metric("cache_evictions", unit: "total", help: "Entries evicted to stay under the tier's limits"), labels: [("tier", tier)])
        }
        for result in ["ok", "failed"] {
            counters["flushes.\(result)"] = registry.makeCounter(
                descriptor: metric("cache_flushes", unit: "total",
                                   help: "Background flushes of the disk cache's new files to stable storage (cache.fsync: batch), by result"),
                labels: [("result", result)])
        }
        self.entries = entries
        self.bytes = bytes
        self.limits = limits
        self.counters = counters
    }

    func update(cache: TwoTierCache) {
        let memory = cache.memory.stats
        set("memory", entries: memory.entries, bytes: memory.bytes, limit: memory.maxBytes)
        var totals = ["memory.hits": memory.hits, "memory.misses": memory.misses, "memory.evictions": memory.evictions]
        if let disk = cache.disk {
            let usage = disk.usage
            set("disk", entries: usage.thumbnails.entries, bytes: usage.thumbnails.bytes, limit: usage.thumbnails.maxBytes)
            set("originals", entries: usage.originals.entries, bytes: usage.originals.bytes, limit: usage.originals.maxBytes)
            let repair = disk.repairProgress
            repairDone.set(repair.fractionDone)
            repairChecksummed.set(Double(repair.filesChecksummed))
            let trim = disk.trimProgress
            trimDone.set(trim.fractionDone)
            trimOver.set(Double(trim.bytesOver))
            let activity = disk.activity
            totals["disk.hits"] = activity.hits
            totals["disk.misses"] = activity.misses
            totals["disk.evictions"] = activity.evictions
            let flushes = disk.backgroundFlushes
            totals["flushes.ok"] = flushes.completed
            totals["flushes.failed"] = flushes.failed
        }
        let increments: [(String, Int)] = previous.withLock { last in
            defer { last.merge(totals) { $1 } }
            return totals.map { ($0.key, $0.value - last[$0.key, default: 0]) }
        }
        for (name, delta) in increments where delta > 0 { counters[name]?.increment(by: Int64(delta)) }
    }

    private func set(_ tier: String, entries count: Int, bytes size: Int, limit: Int) {
        entries[tier]?.set(Double(count))
        bytes[tier]?.set(Double(size))
        limits[tier]?.set(Double(limit))
    }
}

/// A metric name under the `thumbd` namespace.
func metric(_ name: String, unit: String = "", help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(namespace: "thumbd", metricName: name, unitName: unit, helpText: help)
}
