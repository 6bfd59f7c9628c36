import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import ThumbCache
import ThumbPipeline

/// The running service: cache, pipeline, HTTP server, metrics, and an orderly stop.
///
/// On SIGTERM or SIGINT the server stops accepting, requests in flight get `shutdownGrace` to
/// finish, then the CPU pool and the HTTP client stop and the cache writes its index and closes.
public final class Daemon: Sendable {
    public let settings: DaemonSettings
    public let metrics: ServerMetrics
    public let cache: TwoTierCache
    public let pipeline: ThumbnailPipeline
    public let prefetcher: Prefetcher
    /// The last hour of hits, misses and evictions, for the inspector's charts.
    let activity: ActivityHistory
    private let logger: Logger
    private let group = Mutex<ServiceGroup?>(nil)
    private let stopRequested = Mutex(false)

    /// Opens the cache (refusing a directory another live daemon owns) and builds the pipeline.
    public init(settings: DaemonSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        metrics = ServerMetrics()
        let warnLogger = logger
        cache = try TwoTierCache.open(memory: MemoryCache(limits: settings.memoryLimits), diskDirectory: settings.cacheDirectory,
                                      diskLimits: settings.diskLimits, warn: { warnLogger.warning("\($0)") })
        let downloader = Downloader(settings: settings.download, metrics: DownloadMetrics(factory: metrics.factory),
                                    logger: logger)
        pipeline = ThumbnailPipeline(cache: cache, downloader: downloader, settings: settings.pipeline,
                                     metrics: PipelineMetrics(factory: metrics.factory), logger: logger)
        prefetcher = Prefetcher(pipeline: pipeline, settings: settings.prefetch, logger: logger)
        activity = ActivityHistory(interval: settings.server.activitySampleInterval)
    }

    /// Serves until SIGTERM/SIGINT (or `stop()`); `onListening` gets the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let thumbnails = ThumbnailRoute(pipeline: pipeline, settings: settings.server, metrics: metrics)
        let router = makeRouter(thumbnails: thumbnails)
        let observe = requestObserver()
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [
                ThumbnailFastPathInstaller { ThumbnailFastPath(route: thumbnails, observe: observe) },
            ])),
            configuration: .init(address: .hostname(settings.server.host, port: settings.server.port), serverName: "thumbd"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let closer = CacheCloser(pipeline: pipeline, cache: cache, logger: logger)
        let sampler = ActivitySampler(history: activity, cache: cache)
        var configuration = ServiceGroupConfiguration(services: [.init(service: closer), .init(service: sampler), .init(service: app)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = settings.server.shutdownGrace
        let serviceGroup = ServiceGroup(configuration: configuration)
        let stopEarly = group.withLock { $0 = serviceGroup; return stopRequested.withLock { $0 } }
        if stopEarly { await serviceGroup.triggerGracefulShutdown() }
        try await serviceGroup.run()
    }

    /// The same orderly stop as SIGTERM.
    public func stop() async {
        stopRequested.withLock { $0 = true }
        let running = group.withLock { $0 }
        await running?.triggerGracefulShutdown()
    }

    /// The access log and duration histogram for requests the fast path answers.
    private func requestObserver() -> ThumbnailFastPath.Observer {
        let (metrics, logger, accessLog) = (metrics, logger, settings.server.accessLog)
        return { path, status, tier, start in
            let elapsed = ContinuousClock.now - start
            metrics.recordRequest(route: 0, status: status, duration: elapsed)
            if accessLog { RequestLog.line(logger, method: "GET", path: path, status: status, elapsed: elapsed, cache: tier, code: nil) }
        }
    }

    func makeRouter(thumbnails: ThumbnailRoute) -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(RequestLogMiddleware(metrics: metrics, logger: logger, accessLog: settings.server.accessLog,
                                                    retryAfter: settings.server.retryAfterSeconds))
        let cacheRoutes = CacheRoutes(pipeline: pipeline, admin: AdminGuard(token: settings.server.adminToken))
        router.get("/v1/thumbnail") { request, _ in try await thumbnails.handle(request) }
        router.get("/v1/cache/stats") { _, _ in try await cacheRoutes.stats() }
        router.get("/v1/cache/entries") { request, _ in try await cacheRoutes.entries(request) }
        router.delete("/v1/cache/entries") { request, _ in try cacheRoutes.evict(request) }
        let prefetch = PrefetchRoutes(prefetcher: prefetcher, settings: settings.server, admin: AdminGuard(token: settings.server.adminToken))
        router.post("/v1/prefetch") { request, _ in try await prefetch.submit(request) }
        router.get("/v1/prefetch") { _, _ in try prefetch.list() }
        router.get("/v1/prefetch/:id") { _, context in try prefetch.status(context.parameters.require("id")) }
        router.delete("/v1/prefetch/:id") { request, context in try prefetch.cancel(context.parameters.require("id"), request) }
        let uploads = UploadRoutes(settings: settings.uploads, maxRequestBytes: settings.maxUploadRequestBytes,
                                   maxConcurrent: settings.maxConcurrentUploads, pool: pipeline.pool, metrics: metrics.uploads,
                                   retryAfter: settings.server.retryAfterSeconds)
        router.post("/v1/uploads/prepare") { request, _ in try await uploads.prepare(request) }
        if settings.server.inspector { addInspector(to: router) }
        router.get("/healthz") { _, _ in
            try JSONResponse.make(["status": "ok"])
        }
        let metrics = metrics, cache = cache
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition(cache: cache))))
        }
        return router
    }
}

extension Daemon {
    /// `/ui` and what its page reads; off with `server.inspector: false`.
    func addInspector(to router: Router<BasicRequestContext>) {
        let api = InspectorAPI(pipeline: pipeline, prefetcher: prefetcher, history: activity,
                               admin: AdminGuard(token: settings.server.adminToken))
        for path in InspectorPage.assets.keys { router.get(RouterPath(path)) { _, _ in try InspectorPage.response(path) } }
        router.get("/ui/api/overview") { _, _ in try api.overview() }
        router.get("/ui/api/entries") { request, _ in try await api.entries(request) }
        router.get("/ui/api/hosts") { _, _ in try await api.hosts() }
        router.get("/ui/api/session") { request, _ in try api.session(request) }
        router.get("/ui/files") { request, _ in try await api.file(request) }
    }
}

/// Last to stop: after the server has drained, stop the workers and the HTTP client, and close the
/// cache so its index and access times are on disk.
struct CacheCloser: Service {
    let pipeline: ThumbnailPipeline
    let cache: TwoTierCache
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        pipeline.pool.shutdown()
        await pipeline.downloader.shutdown()
        cache.close()
        logger.info("cache closed; thumbd stopped")
    }
}
