import Foundation
import ImageCodecs
import ImageCore
import Logging
import Synchronization
import ThumbCache
import Thumbnailer

/// Makes thumbnails that are not in the cache: one job per cache key however many ask at once,
/// downloads through the guarded `Downloader`, pixel work on the `CPUPool`, results stored in
/// both cache tiers before every waiter gets them.
public final class ThumbnailPipeline: Sendable {
    public let cache: TwoTierCache
    public let downloader: Downloader
    public let pool: CPUPool
    public let settings: PipelineSettings
    private let metrics: PipelineMetrics
    private let logger: Logger
    private let jobs = Mutex<[CacheKey: Job]>([:])

    public init(cache: TwoTierCache, downloader: Downloader, settings: PipelineSettings = PipelineSettings(),
                metrics: PipelineMetrics = PipelineMetrics(), pool: CPUPool? = nil,
                logger: Logger = Logger(label: "thumbd.pipeline")) {
        self.cache = cache
        self.downloader = downloader
        self.settings = settings
        self.metrics = metrics
        self.pool = pool ?? CPUPool(threads: settings.workerThreads > 0 ? settings.workerThreads : CPUPool.defaultThreads,
                                    depth: metrics.queueDepth)
        self.logger = logger
    }

    /// Jobs under way now.
    public var jobsInFlight: Int { jobs.withLock { $0.count } }

    /// The thumbnail for `key`: from the cache when fresh, otherwise made (or revalidated, when
    /// the cache holds a stale copy with the origin's validators). Many callers with one key share
    /// one job; a caller whose task is cancelled leaves it, and the last to leave cancels it.
    public func thumbnail(_ key: CacheKey, spec: ThumbnailSpec, priority: WorkPriority) async throws -> PipelineResult {
        let stale: CacheHit?
        if let hit = cache.get(key) {
            guard hit.isStale else { return PipelineResult(hit) }
            stale = hit
        } else {
            stale = nil
        }
        return try await make(key, spec: spec, priority: priority, stale: stale)
    }

    /// Joins or starts the job for `key` (the caller has already missed the cache, or found `stale`).
    public func make(_ key: CacheKey, spec: ThumbnailSpec, priority: WorkPriority, stale: CacheHit?) async throws -> PipelineResult {
        while true {
            let (job, id, isNew) = try jobs.withLock { table throws -> (Job, UInt64?, Bool) in
                if let existing = table[key] { return (existing, existing.join(priority: priority), false) }
                guard table.count < settings.maxJobs else { throw PipelineBusy(jobs: settings.maxJobs) }
                let job = Job(key: key, priority: priority)
                table[key] = job
                return (job, job.join(priority: priority), true)
            }
            guard let id else {
                // Abandoned a moment ago by its last waiter: forget it and start afresh.
                jobs.withLock { table in if table[key] === job { table[key] = nil } }
                continue
            }
            if isNew {
                metrics.jobsStarted.increment()
                job.start(Task { [self] in
                    let result: Result<PipelineResult, any Error>
                    do { result = .success(try await run(job, spec: spec, stale: stale)) } catch { result = .failure(error) }
                    jobs.withLock { table in if table[key] === job { table[key] = nil } }
                    job.finish(result)
                })
            } else {
                metrics.coalescedWaiters.increment()
            }
            return try await job.wait(id) { [self] in
                metrics.cancellations.increment()
                jobs.withLock { table in if table[key] === job { table[key] = nil } }
            }
        }
    }

    // MARK: The work of one job

    private func run(_ job: Job, spec: ThumbnailSpec, stale: CacheHit?) async throws -> PipelineResult {
        metrics.jobsInFlight.increment()
        defer { metrics.jobsInFlight.decrement() }
        let url = job.key.url.value
        if let stale, !stale.validators.isEmpty {
            metrics.revalidations.increment()
            do {
                switch try await downloader.download(url, validators: stale.validators, priority: job.priority) {
                case .notModified(let validators):
                    metrics.notModified.increment()
                    cache.refresh(job.key, validators: validators)
                    var result = PipelineResult(stale)
                    result.revalidated = true
                    return result
                case .fetched(let body):
                    return try await process(job, spec: spec, source: body, keepOriginal: true)
                }
            } catch let error as DownloadError {
                // stale-if-error: the origin is down or refuses; what we hold is better than nothing.
                logger.warning("revalidation failed; serving the stale copy",
                               metadata: ["url": "\(url)", "code": "\(error.code.rawValue)"])
                var result = PipelineResult(stale)
                result.servedStale = true
                return result
            }
        }
        let originalKey = CacheKey(url: job.key.url, variant: .original)
        if settings.keepOriginals, let disk = cache.disk, let kept = (try? disk.lookup(originalKey)) ?? nil, !kept.isStale {
            let body = OriginBody(bytes: kept.bytes, contentType: kept.entry.contentType, validators: kept.entry.validators, finalURL: url)
            return try await process(job, spec: spec, source: body, keepOriginal: false)
        }
        guard case .fetched(let body) = try await downloader.download(url, priority: job.priority) else {
            throw DownloadError(.originStatus, "\(url) answered 304 to an unconditional request", originStatus: 304)
        }
        return try await process(job, spec: spec, source: body, keepOriginal: true)
    }

    private func process(_ job: Job, spec: ThumbnailSpec, source: OriginBody, keepOriginal: Bool) async throws -> PipelineResult {
        try Task.checkCancellation()
        let request = ThumbnailRequest(size: spec.size, fit: spec.fit, limits: settings.decodeLimits,
                                       decodeHeadroom: settings.decodeHeadroom)
        let (key, cache, metrics, keepOriginals) = (job.key, cache, metrics, settings.keepOriginals)
        return try await pool.run(priority: job.priority) { () throws -> PipelineResult in
            let rendered = try Thumbnailer.render(from: source.bytes, request)
            let encoding = spec.encoding(for: rendered.source)
            let start = ContinuousClock.now
            let bytes = try ImageCodecs.encode(rendered.pixels, encoding)
            metrics.decode.recordNanoseconds(rendered.timings.decode.nanoseconds)
            metrics.resize.recordNanoseconds(rendered.timings.resize.nanoseconds)
            metrics.encode.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
            let contentType = encoding.format.mimeType
            // Stored before anyone is answered: a request that arrives after the answer hits the cache.
            let checksum = cache.set(key, bytes, validators: source.validators, contentType: contentType)
            if keepOriginal, keepOriginals, let disk = cache.disk {
                try? disk.store(CacheKey(url: key.url, variant: .original), source.bytes, validators: source.validators,
                                contentType: source.contentType)
            }
            return PipelineResult(bytes: bytes, contentType: contentType, checksum: checksum, source: .miss)
        }
    }

}

extension CPUPool {
    public static var defaultThreads: Int { ProcessInfo.processInfo.activeProcessorCount }
}
