import ThumbVariant
import Foundation
import ImageCore
import Logging
import Synchronization
import ThumbCache

/// Runs prefetch jobs: thumbnails made ahead of anyone asking, below interactive requests in every
/// queue, each job cancellable at once. A job's items go through the same pipeline as requests,
/// so a request for a URL a job is making joins that job's work (and raises its priority).
public final class Prefetcher: Sendable {
    public enum Source: Sendable {
        case urls([String])
        case page(ProductListPage, includeImages: Bool)
        /// Fetch the page JSON through the guarded downloader, and while `has_next`, up to `pages`
        /// pages in all (`page_no` + 1 each time).
        case pageURL(String, pages: Int, includeImages: Bool)
    }

    /// Sizes one job may make of each photo (`sizes`): a shop shows a photo in two to five.
    public static let maxSizes = 8

    /// `variants` in their order, each once: two spellings of one size (128 and 128x128, or sizes
    /// that dpr takes past the limit alike) are one thumbnail.
    public static func distinct(_ variants: [Variant]) -> [Variant] {
        var distinct: [Variant] = []
        for variant in variants where !distinct.contains(variant) { distinct.append(variant) }
        return distinct
    }

    public let settings: PrefetchSettings
    private let pipeline: ThumbnailPipeline
    private let maker: any PrefetchMaker
    private let logger: Logger
    private let jobs = Mutex<[String: PrefetchJob]>([:])

    /// `maker`: how each item is made; this daemon's pipeline unless given (a fleet's entry point).
    public init(pipeline: ThumbnailPipeline, settings: PrefetchSettings = PrefetchSettings(), maker: (any PrefetchMaker)? = nil,
                logger: Logger = Logger(label: "thumbd.prefetch")) {
        self.pipeline = pipeline
        self.maker = maker ?? LocalPrefetchMaker(pipeline: pipeline)
        self.settings = settings
        self.logger = logger
    }

    /// Starts a job and returns its first report at once. Refused when it holds no URL, too many
    /// URLs, or when `maxActiveJobs` are running.
    public func submit(_ source: Source, variant: Variant) throws(PrefetchRefused) -> PrefetchStatus {
        try submit(source, variants: [variant])
    }

    /// A job making several variants (sizes) of each photo: a photo's are made together, so its
    /// download and its decode serve them all (`DecodeShares`). Each variant of each URL is one
    /// thumbnail in the report's counts; duplicate variants are made once.
    public func submit(_ source: Source, variants: [Variant]) throws(PrefetchRefused) -> PrefetchStatus {
        let distinctVariants = Self.distinct(variants)
        guard !distinctVariants.isEmpty else { throw PrefetchRefused(code: .noURLs, message: "the job names no size") }
        var initial: [PrefetchItem] = []
        switch source {
        case .urls(let urls): initial = urls.map(PrefetchItem.url)
        case .page(let page, let includeImages): initial = page.items(includeImages: includeImages)
        case .pageURL: break
        }
        if case .pageURL = source {} else {
            guard !initial.isEmpty else { throw PrefetchRefused(code: .noURLs, message: "the job holds no URL") }
            let distinct = Set(initial).count
            guard distinct <= settings.maxURLsPerJob else {
                throw PrefetchRefused(code: .tooManyURLs, message: "the job holds \(distinct) URLs; the limit is \(settings.maxURLsPerJob)")
            }
        }
        let job = PrefetchJob(id: Self.newID(), variantsPerURL: distinctVariants.count)
        try jobs.withLock { (table) throws(PrefetchRefused) in
            prune(&table)
            let running = table.values.filter(\.isRunning).count
            guard running < settings.maxActiveJobs else {
                throw PrefetchRefused(code: .tooManyJobs, message: "\(running) prefetch jobs are running; the limit is \(settings.maxActiveJobs)")
            }
            table[job.id] = job
        }
        let admitted = job.admit(initial)
        job.attach(Task { [self] in
            await run(job, source: source, first: admitted, variants: distinctVariants)
            job.finish()
        })
        return job.status
    }

    public func status(_ id: String) -> PrefetchStatus? {
        jobs.withLock { table in
            prune(&table)
            return table[id]
        }?.status
    }

    public func list() -> [PrefetchStatus] {
        jobs.withLock { table in
            prune(&table)
            return Array(table.values)
        }.map(\.status).sorted { $0.created < $1.created }
    }

    /// Drops reports of jobs that ended longer than `keepFinished` ago.
    private func prune(_ table: inout [String: PrefetchJob]) {
        let cutoff = ContinuousClock.now - settings.keepFinished
        table = table.filter { !$0.value.ended(before: cutoff) }
    }

    /// Cancels what has not finished; nil for an unknown job.
    @discardableResult
    public func cancel(_ id: String) -> PrefetchStatus? {
        guard let job = jobs.withLock({ $0[id] }) else { return nil }
        job.cancel()
        return job.status
    }

    /// `DELETE /v1/prefetch/{id}`: cancels the job if it is running and forgets it at once (its id
    /// is unknown from here on), then waits for its work to stop and returns its last report, whose
    /// counts add up. nil for an unknown job.
    public func remove(_ id: String) async -> PrefetchStatus? {
        guard let job = jobs.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        job.cancel()
        await job.waitUntilEnded()
        return job.status
    }

    // MARK: Work

    private func run(_ job: PrefetchJob, source: Source, first: [PrefetchItem], variants: [Variant]) async {
        guard case .pageURL(let url, let pages, let includeImages) = source else {
            await make(first, in: job, variants: variants)
            return
        }
        // Pages are fetched one after another while earlier pages' thumbnails are being made.
        await withTaskGroup(of: Void.self) { group in
            var next: String? = url
            var fetched = 0
            while let pageURL = next, fetched < min(pages, settings.maxPages), !Task.isCancelled {
                do {
                    let page = try await fetchPage(pageURL)
                    fetched += 1
                    job.record { $0.pagesFetched += 1 }
                    let items = job.admit(page.items(includeImages: includeImages))
                    group.addTask { await self.make(items, in: job, variants: variants) }
                    next = page.hasNext ? ProductListPage.nextPageURL(pageURL, after: page.pageNumber ?? fetched) : nil
                } catch {
                    // The page is one item whatever the sizes: it failed once.
                    job.admitFailedPage()
                    job.record { $0.failed += 1; $0.failures.append(.init(url: pageURL, code: Self.code(of: error), message: Self.message(of: error))) }
                    next = nil
                }
            }
        }
    }

    private func fetchPage(_ url: String) async throws -> ProductListPage {
        guard case .fetched(let body) = try await pipeline.downloader.download(url, priority: PriorityCell(.prefetch)) else {
            throw DownloadError(.originStatus, "\(url) answered 304", originStatus: 304)
        }
        do {
            return try JSONDecoder().decode(ProductListPage.self, from: Data(body.bytes))
        } catch {
            throw PageError(message: "\(url) is not a product-list page: \(error)")
        }
    }

    /// Makes `items` with about `settings.concurrency` thumbnails in flight: a photo's variants go
    /// together and count each, and one photo is always allowed, so a job with more sizes than the
    /// limit makes one photo at a time. Stops starting new ones as soon as the job is cancelled.
    private func make(_ items: [PrefetchItem], in job: PrefetchJob, variants: [Variant]) async {
        let photosInFlight = max(1, settings.concurrency / variants.count)
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            for item in items {
                if Task.isCancelled { break }
                if inFlight >= photosInFlight {
                    await group.next()
                    inFlight -= 1
                    if Task.isCancelled { break }
                }
                group.addTask { await self.makeAll(item, in: job, variants: variants) }
                inFlight += 1
            }
        }
    }

    /// Every variant of one item, at once, so they share the photo's download and decode; the
    /// photo's placeholder is reported once, when its variants are done.
    private func makeAll(_ item: PrefetchItem, in job: PrefetchJob, variants: [Variant]) async {
        let url: String
        switch item {
        case .missing(let label):
            job.record { status in
                status.failed += variants.count
                for _ in variants { status.failures.append(.init(url: label, code: "missing_url", message: "the entry has no URL")) }
            }
            return
        case .url(let text):
            url = text
        }
        // The first size's placeholder (in the order asked), whichever finishes first.
        let placeholder = await withTaskGroup(of: (Int, Placeholder?).self) { group in
            for (index, variant) in variants.enumerated() {
                group.addTask { (index, await self.makeOne(url, variant: variant, in: job)) }
            }
            var found: [Int: Placeholder] = [:]
            for await (index, placeholder) in group { found[index] = placeholder }
            return found.min { $0.key < $1.key }?.value
        }
        if let placeholder {
            job.record { status in
                if status.placeholders == nil { status.placeholders = [] }
                status.placeholders?.append(placeholder)
            }
        }
    }

    /// One thumbnail of the job; its photo's placeholder when it has one.
    private func makeOne(_ url: String, variant: Variant, in job: PrefetchJob) async -> Placeholder? {
        do {
            let outcome = try await maker.make(url, variant: variant)
            job.record { status in
                switch outcome {
                case .made(let bytes, _):
                    status.done += 1
                    status.bytes += bytes
                case .alreadyCached:
                    status.alreadyCached += 1
                }
            }
            return outcome.placeholder
        } catch is CancellationError {
        } catch {
            let code = Self.code(of: error)
            let fellBack = settings.fallbackCovers(variant) && FallbackPicture.coveredCodes.contains(code)
            job.record { status in
                status.failed += 1
                if fellBack { status.fellBack = (status.fellBack ?? 0) + 1 }
                status.failures.append(.init(url: url, code: code, message: Self.message(of: error)))
            }
            return nil
        }
        job.record { $0.cancelled += 1 }
        return nil
    }

    /// The reason without the code (the report has the code beside it).
    static func message(of error: any Error) -> String {
        switch error {
        case let error as DownloadError: error.message
        case let error as ImageError: error.message
        case let error as PrefetchItemError: error.message
        default: "\(error)"
        }
    }

    static func code(of error: any Error) -> String {
        switch error {
        case let error as DownloadError: error.code.rawValue
        case let error as ImageError: error.code.rawValue
        case let error as PrefetchItemError: error.code
        case is PageError: "invalid_page"
        default: "internal_error"
        }
    }

    private static func newID() -> String {
        (0..<12).map { _ in String("0123456789abcdef".randomElement()!) }.joined()
    }
}

struct PageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
