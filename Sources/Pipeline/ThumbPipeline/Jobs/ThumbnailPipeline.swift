import ThumbVariant
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
    /// The fleet's shared result tier, when `cache.shared` is set.
    public let shared: SharedTier?
    let metrics: PipelineMetrics
    private let logger: Logger
    /// One job per (URL, variant).
    private let jobs: JobTable<PipelineResult>
    /// One download per URL, shared by every variant job that needs the original.
    private let originals: JobTable<SharedOriginal>
    /// One decode for the sizes of a photo made together.
    let decodes: DecodeShares

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
        shared = settings.shared.map {
            SharedTier(settings: $0, s3: downloader.settings.s3, client: downloader.client, maxBytes: downloader.settings.maxBytes,
                       metrics: metrics.shared, logger: logger)
        }
        jobs = JobTable(limit: settings.maxJobs, events: .init(started: { metrics.jobsStarted.increment() },
                                                              joined: { metrics.coalescedWaiters.increment() },
                                                              abandoned: { metrics.cancellations.increment() }))
        originals = JobTable(limit: nil, events: .init(joined: { metrics.sharedDownloads.increment() }))
        decodes = DecodeShares(shared: { metrics.sharedDecodes.increment() })
    }

    /// Jobs under way now.
    public var jobsInFlight: Int { jobs.count }

    /// Photos whose sizes' jobs share a decode now (their decoded pixels held until the last is done).
    public var decodeGroups: Int { decodes.groupCount }

    /// The thumbnail `target` names, under its key: from the cache when fresh, otherwise made (or revalidated, when
    /// the cache holds a stale copy with the origin's validators). Many callers with one key share
    /// one job; a caller whose task is cancelled leaves it, and the last to leave cancels it.
    /// `signed`: the URL as the request gave it, when the key leaves part of it out (`keyed`).
    public func thumbnail(_ target: KeyedVariant, priority: WorkPriority, signed: SignedURL? = nil) async throws -> PipelineResult {
        let stale: CacheHit?
        if let hit = cache.get(target.key) {
            if !hit.isStale {
                guard let signed, signed.confirmsHits else { return PipelineResult(hit) }
                return try await confirmed(PipelineResult(hit), target, priority: priority, signed: signed)
            }
            stale = hit
        } else {
            stale = nil
        }
        return try await make(target, priority: priority, stale: stale, signed: signed)
    }

    /// What the cache can answer for `key` at once, with no job (the hit path, which answers on the
    /// connection's event loop): a memory or disk hit, or a disk file to send as it is.
    public func servable(_ key: CacheKey, readingUpTo: Int) -> TwoTierCache.Servable? {
        cache.servable(key, readingUpTo: readingUpTo)
    }

    /// Joins or starts the job for `target`'s key (the caller has already missed the cache, or found `stale`).
    public func make(_ target: KeyedVariant, priority: WorkPriority, stale: CacheHit?, signed: SignedURL? = nil) async throws -> PipelineResult {
        let fetch = signed?.url ?? target.key.url.value
        let result: PipelineResult
        do {
            result = try await jobs.run(target.key, priority: priority) { [self] job in
                try await run(job, variant: target.variant, stale: stale, fetch: fetch, servesStaleOnError: signed?.confirmsHits != true)
            }
        } catch let error as DownloadError where signed != nil {
            throw Self.refusal(error)
        }
        // Another request's job (another signature of the object), or a kept original: this
        // request's own URL has not been shown to the origin yet.
        guard let signed, signed.confirmsHits, result.fetchedFrom != signed.url else { return result }
        return try await confirmed(result, target, priority: priority, signed: signed)
    }

    // MARK: The work of one job

    private func run(_ job: Job<PipelineResult>, variant: Variant, stale: CacheHit?, fetch url: String,
                     servesStaleOnError: Bool) async throws -> PipelineResult {
        metrics.jobsInFlight.increment()
        defer { metrics.jobsInFlight.decrement() }
        if let stale, !stale.validators.isEmpty {
            metrics.revalidations.increment()
            do {
                switch try await downloader.download(url, validators: stale.validators, priority: job.priority) {
                case .notModified(let validators):
                    metrics.notModified.increment()
                    cache.refresh(job.key, validators: validators)
                    var result = PipelineResult(stale)
                    result.revalidated = true
                    result.fetchedFrom = url
                    return result
                case .fetched(let body):
                    return try await process(job.key, priority: job.priority, variant: variant, source: body, keepOriginal: true)
                }
            } catch let error as DownloadError where servesStaleOnError {
                // stale-if-error: the origin is down or refuses; what we hold is better than nothing.
                logger.warning("revalidation failed; serving the stale copy",
                               metadata: ["url": "\(url)", "code": "\(error.code.rawValue)"])
                var result = PipelineResult(stale)
                result.servedStale = true
                return result
            }
        }
        // A plain miss: another node may have made it.
        if stale == nil, let shared, let found = await shared.read(job.key) {
            let checksum = cache.set(job.key, found.bytes, validators: found.validators, contentType: found.contentType, photo: found.photo)
            var result = PipelineResult(bytes: found.bytes, contentType: found.contentType ?? "application/octet-stream", checksum: checksum,
                                        source: .shared, photo: found.photo)
            result.validators = found.validators
            return result
        }
        // Joined before the wait for the original, so the sizes of this photo asked meanwhile share its decode.
        let ticket = decodes.join(job.key.url, settings.maker.request(for: variant))
        defer { decodes.leave(ticket) }
        switch try await original(for: job, fetch: url) {
        case .kept(let body):
            var result = try await process(job.key, priority: job.priority, variant: variant, source: body, keepOriginal: false,
                                           decode: ticket)
            result.fetchedFrom = nil
            return result
        case .downloaded(let shared):
            do {
                let result = try await process(job.key, priority: job.priority, variant: variant, source: shared.body, keepOriginal: false,
                                               decode: ticket)
                shared.report(decodable: true)
                return result
            } catch let error as ImageError {
                shared.report(decodable: false)
                throw error
            }
        }
    }

    private enum Original {
        /// Read from the disk tier.
        case kept(OriginBody)
        /// Just downloaded, possibly for several variants at once.
        case downloaded(SharedOriginal)
    }

    /// The original for a thumbnail job: kept on disk, or downloaded once however many variants of
    /// the URL need it at the same time.
    private func original(for job: Job<PipelineResult>, fetch url: String) async throws -> Original {
        let originalKey = CacheKey(url: job.key.url, variant: .original)
        if let kept = keptOriginal(originalKey) { return .kept(kept) }
        let shared = try await originals.run(originalKey, priority: job.priority.current) { [self] download in
            guard case .fetched(let body) = try await downloader.download(url, priority: download.priority) else {
                throw DownloadError(.originStatus, "\(url) answered 304 to an unconditional request", originStatus: 304)
            }
            return SharedOriginal(body)
        } settle: { [self] shared in
            // Until the first decode says it is an image (and it is stored), later variants of the
            // URL join this finished download instead of finding neither a job nor a kept file.
            guard await shared.verdict(within: .seconds(60)) else { return }
            await storeOriginal(originalKey, shared.body, priority: job.priority)
        }
        return .downloaded(shared)
    }

    private func keptOriginal(_ key: CacheKey) -> OriginBody? {
        guard settings.keepOriginals, let disk = cache.disk, let kept = (try? disk.read(key, .bytes)) ?? nil, !kept.isStale else { return nil }
        return OriginBody(bytes: kept.bytes, contentType: kept.entry.contentType, validators: kept.entry.validators, finalURL: key.url.value)
    }

    /// Keeps a downloaded original on disk (own budget), so a new size of it needs no download.
    /// Done on the CPU pool: it writes and syncs a file.
    private func storeOriginal(_ key: CacheKey, _ body: OriginBody, priority: PriorityCell) async {
        guard settings.keepOriginals, let disk = cache.disk else { return }
        _ = try? await pool.run(priority: priority) {
            try? disk.store(key, body.bytes, validators: body.validators, contentType: body.contentType)
        }
    }

    /// Makes and stores the thumbnail of `source` (downloaded, or a kept original). The result
    /// carries the origin's validators and the URL its bytes came from. `sharing`: written to the
    /// shared tier too, when there is one. `decode`: the job's place among the sizes of its photo
    /// made together, whose decode it shares.
    func process(_ key: CacheKey, priority: PriorityCell, variant: Variant, source: OriginBody, keepOriginal: Bool,
                 sharing: Bool = true, decode ticket: DecodeShares.Ticket? = nil) async throws -> PipelineResult {
        try Task.checkCancellation()
        let maker = settings.maker
        let (cache, metrics, keepOriginals, shared, pool) = (cache, metrics, settings.keepOriginals, sharing ? shared : nil, pool)
        // A leader decodes for every size of its photo inside its own CPU job, so a miss waits for
        // the CPU queue once; a follower waits for that decode first.
        let decodes = decodes
        let role = ticket.map { decodes.role($0, source: DecodeShares.Source(byteCount: source.bytes.count, validators: source.validators)) }
        let followed: DecodedPhoto?
        if let ticket, case .follow = role { followed = await decodes.photo(ticket) } else { followed = nil }
        // Whatever happens to the leader's job (an error, a cancellation before it ran), its
        // followers are told; after the job's own `finish` this changes nothing.
        defer { if let ticket, case .lead = role { decodes.finish(ticket, nil) } }
        return try await pool.run(priority: priority) { () throws -> PipelineResult in
            let request = maker.request(for: variant)
            let decodedPhoto: DecodedPhoto
            if let followed {
                decodedPhoto = followed
            } else if let ticket, case .lead(let requests) = role {
                do { decodedPhoto = try Thumbnailer.decode(source.bytes, for: requests) } catch {
                    decodes.finish(ticket, nil)
                    throw error
                }
                decodes.finish(ticket, decodedPhoto)
            } else {
                decodedPhoto = try Thumbnailer.decode(source.bytes, for: [request])
            }
            let thumbnail = try maker.make(decodedPhoto, as: variant)
            let bytes = thumbnail.bytes
            // A decode another job made is counted once, by that job.
            if followed == nil { metrics.decode.recordNanoseconds(thumbnail.timings.decode.nanoseconds) }
            // Choosing a smart crop's window is part of cropping and resizing.
            metrics.resize.recordNanoseconds((thumbnail.timings.resize + thumbnail.timings.crop).nanoseconds)
            metrics.placeholder.recordNanoseconds(thumbnail.timings.placeholder.nanoseconds)
            metrics.recordColor(thumbnail.color, took: thumbnail.timings.color)
            metrics.encode.recordNanoseconds(thumbnail.timings.encode.nanoseconds)
            let contentType = thumbnail.format.mimeType
            // Stored before anyone is answered: a request that arrives after the answer hits the cache.
            let photo = PhotoSummary(thumbnail.photo, color: thumbnail.color)
            let checksum = cache.set(key, bytes, validators: source.validators, contentType: contentType, photo: photo)
            shared?.write(key, bytes: bytes, contentType: contentType, validators: source.validators, photo: photo)
            if keepOriginal, keepOriginals, let disk = cache.disk {
                // A revalidation that brought a changed original: it replaces the kept one.
                try? disk.store(CacheKey(url: key.url, variant: .original), source.bytes, validators: source.validators,
                                contentType: source.contentType)
            }
            var result = PipelineResult(bytes: bytes, contentType: contentType, checksum: checksum, source: .miss, photo: photo)
            result.validators = source.validators
            result.fetchedFrom = source.finalURL
            return result
        }
    }

}

extension CPUPool {
    public static var defaultThreads: Int { ProcessInfo.processInfo.activeProcessorCount }
}
