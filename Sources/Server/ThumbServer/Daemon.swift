import HeapTuning
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import ServiceNotify
import Synchronization
import ThumbCache
import ThumbFleet
import ThumbPipeline

/// The running service: cache, pipeline, HTTP server, metrics, and an orderly stop.
///
/// On SIGTERM or SIGINT the node turns not-ready (`/readyz` 503 `draining`) and keeps answering
/// for `drainGrace`; then the server stops accepting, requests in flight get `drainTimeout` to
/// finish, the CPU pool and the HTTP client stop, and the cache writes its index and closes.
public final class Daemon: Sendable {
    public let settings: DaemonSettings
    public let metrics: ServerMetrics
    public let cache: TwoTierCache
    public let pipeline: ThumbnailPipeline
    public let prefetcher: Prefetcher
    /// Requests to the fleet's entry point (prefetch items), when `fleet.entry` is set.
    private let fleetClient: FleetClient?
    /// The last hour of hits, misses and evictions, for the inspector's charts.
    let activity: ActivityHistory
    /// What `/readyz` answers.
    public let readiness = Readiness()
    /// nil when `server.access_log` is off.
    let accessLog: AccessLog?
    /// The connection cap (as the descriptor limit allows it) and the per-connection timeouts.
    let connectionLimits: ConnectionLimits
    private let logger: Logger
    private let group = Mutex<ServiceGroup?>(nil)
    private let stopRequested = Mutex(false)

    /// Opens the cache (refusing a directory another live daemon owns) and builds the pipeline.
    public init(settings: DaemonSettings, logger: Logger) throws {
        self.settings = settings
        self.logger = logger
        AllocatorTuning.apply(reusingBuffers: settings.server.heapTrimInterval > .zero)
        metrics = ServerMetrics()
        // Before the cache opens: it sizes its kept files by the limit.
        let descriptors = DescriptorLimit.raise(for: settings.server.maxConnections)
        if descriptors.maxConnections < settings.server.maxConnections {
            logger.warning("the open-file limit allows fewer connections than server.max_connections; serving with fewer", metadata: [
                "max_connections": "\(settings.server.maxConnections)", "allowed": "\(descriptors.maxConnections)",
                "nofile_soft": "\(descriptors.soft)", "nofile_hard": "\(descriptors.hard)",
                "fix": "raise the hard limit (systemd: LimitNOFILE=; a shell: ulimit -Hn) or lower server.max_connections",
            ])
        }
        connectionLimits = ConnectionLimits(
            maxConnections: descriptors.maxConnections,
            timeouts: .init(header: settings.server.headerTimeout, keepAlive: settings.server.keepAliveTimeout,
                            body: settings.server.bodyTimeout, send: settings.server.sendTimeout),
            registry: metrics.registry)
        let warnLogger = logger
        let opening = ContinuousClock.now
        cache = try TwoTierCache.open(memory: MemoryCache(limits: settings.memoryLimits), diskDirectory: settings.cacheDirectory,
                                      diskLimits: settings.diskLimits, repair: .inBackground, warmIndex: true, warn: { warnLogger.warning("\($0)") })
        // The listener opens only after this: until then a balancer's connections are refused and
        // it sends the work to another node (nginx retries a refused connect at once).
        if let startup = cache.disk?.startup {
            switch startup.kind {
            case .clean:
                break
            case .created:
                logger.notice("cache directory created", metadata: ["directory": "\(settings.cacheDirectory?.path ?? "")"])
            case .rebuilt:
                let elapsed = ContinuousClock.now - opening
                logger.notice("cache index rebuilt from the files before serving", metadata: [
                    "open_ms": "\(Int(elapsed / .milliseconds(1)))",
                ])
            default:
                // Served at once: every file is checksummed before its first hit until the repair
                // has been through every folder (metric thumbd_cache_repair_progress_ratio).
                let elapsed = ContinuousClock.now - opening
                logger.notice("cache left by a crash: serving now, repairing in the background", metadata: [
                    "previous_end": "\(startup.kind.rawValue)", "open_ms": "\(Int(elapsed / .milliseconds(1)))",
                ])
            }
        }
        let downloader = Downloader(settings: settings.download, metrics: DownloadMetrics(factory: metrics.factory),
                                    logger: logger)
        pipeline = ThumbnailPipeline(cache: cache, downloader: downloader, settings: settings.pipeline,
                                     metrics: PipelineMetrics(factory: metrics.factory), logger: logger)
        let fleet = settings.fleetPrefetch()
        fleetClient = fleet?.client
        var prefetch = settings.prefetch
        let fallback = settings.server.fallback
        prefetch.fallbackCovers = { fallback.picture(forPreset: $0.preset) != nil }
        prefetcher = Prefetcher(pipeline: pipeline, settings: prefetch, maker: fleet?.maker, logger: logger)
        activity = ActivityHistory(interval: settings.server.activitySampleInterval)
        if settings.server.accessLog {
            accessLog = try AccessLog(format: settings.server.accessLogFormat, path: settings.server.accessLogPath, metrics: metrics.factory,
                                      warn: { [logger] in logger.warning("\($0)") })
        } else {
            accessLog = nil
        }
    }

    /// Serves until SIGTERM/SIGINT (or `stop()`); `onListening` gets the bound port (useful with port 0).
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let thumbnails = ThumbnailRoute(pipeline: pipeline, settings: settings.server, metrics: metrics)
        let router = makeRouter(thumbnails: thumbnails)
        let observe = requestObserver()
        let (readiness, limits) = (readiness, connectionLimits)
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [
                ThumbnailFastPathInstaller(limits: limits) { deadlines, handedOn in
                    (RawHitAnswerer(route: thumbnails, readiness: readiness, deadlines: deadlines, handedOn: handedOn, observe: observe),
                     ThumbnailFastPath(route: thumbnails, readiness: readiness, deadlines: deadlines, handedOn: handedOn, observe: observe))
                },
            ])),
            // A burst of connects (a product page's prefetch, a fleet reconnecting) waits in the kernel's
            // queue instead of overflowing Hummingbird's 256 and being retried a second or more later;
            // Linux caps this at net.core.somaxconn.
            configuration: .init(address: .hostname(settings.server.host, port: settings.server.port), serverName: "thumbd", backlog: 4096),
            onServerRunning: { channel in
                readiness.markReady()
                // systemd (Type=notify) counts the service started from here: listening, cache open.
                SystemdNotify.ready(status: "serving on port \(channel.localAddress?.port ?? 0)")
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        let closer = CacheCloser(pipeline: pipeline, cache: cache, fleetClient: fleetClient, accessLog: accessLog, logger: logger)
        let reopener = accessLog.flatMap { $0.path != nil ? AccessLogReopener(accessLog: $0) : nil }
        defer { reopener?.stop() }
        let sampler = ActivitySampler(history: activity, cache: cache, answers: metrics.answers)
        let trimmer = HeapTrimmer(interval: settings.server.heapTrimInterval, pool: pipeline.pool, trims: metrics.heap.trims, logger: logger)
        let drain = DrainGate(readiness: readiness, grace: settings.server.drainGrace, logger: logger)
        // Stopped in reverse order, each after the one before it has returned: the drain grace,
        // then the HTTP server (stop accepting, finish in flight), then sampling, then the cache.
        var configuration = ServiceGroupConfiguration(services: [.init(service: closer), .init(service: sampler), .init(service: trimmer),
                                                                 .init(service: app),
                                                                 .init(service: drain)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = settings.server.drainGrace + settings.server.drainTimeout
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
        let (metrics, accessLog) = (metrics, accessLog)
        return { path, status, tier, start in
            let elapsed = ContinuousClock.now - start
            metrics.recordRequest(route: 0, status: status, duration: elapsed)
            accessLog?.record(method: "GET", path: path, status: status, elapsed: elapsed, cache: tier, code: nil)
        }
    }

    func makeRouter(thumbnails: ThumbnailRoute) -> Router<ThumbdRequestContext> {
        // HEAD is answered wherever GET is (the GET route's head, without its body).
        let router = Router(context: ThumbdRequestContext.self, options: .autoGenerateHeadEndpoints)
        let methods = RouteMethods()
        router.middlewares.add(RequestLogMiddleware(metrics: metrics, logger: logger, accessLog: accessLog,
                                                    retryAfter: settings.server.retryAfterSeconds, readiness: readiness,
                                                    methods: methods))
        let cacheRoutes = CacheRoutes(pipeline: pipeline, admin: AdminGuard(token: settings.server.adminToken))
        router.get("/v1/thumbnail") { request, context in try await thumbnails.handle(request, context: context) }
        let placeholders = PlaceholderRoute(thumbnails: thumbnails)
        router.get("/v1/placeholder") { request, context in try await placeholders.handle(request, context: context) }
        router.get("/v1/cache/stats") { _, _ in try await cacheRoutes.stats() }
        router.get("/v1/cache/entries") { request, _ in try await cacheRoutes.entries(request) }
        router.delete("/v1/cache/entries") { request, _ in try await cacheRoutes.evict(request) }
        let prefetch = PrefetchRoutes(prefetcher: prefetcher, settings: settings.server, admin: AdminGuard(token: settings.server.adminToken))
        router.post("/v1/prefetch") { request, _ in try await prefetch.submit(request) }
        router.get("/v1/prefetch") { _, _ in try prefetch.list() }
        router.get("/v1/prefetch/:id") { _, context in try prefetch.status(context.parameters.require("id")) }
        router.delete("/v1/prefetch/:id") { request, context in try await prefetch.delete(context.parameters.require("id"), request) }
        let uploads = UploadRoutes(settings: settings.uploads, maxRequestBytes: settings.maxUploadRequestBytes,
                                   maxConcurrent: settings.maxConcurrentUploads, pool: pipeline.pool, metrics: metrics.uploads,
                                   retryAfter: settings.server.retryAfterSeconds)
        router.post("/v1/uploads/prepare") { request, _ in try await uploads.prepare(request) }
        if settings.server.inspector { addInspector(to: router) }
        let openAPI = OpenAPIDocument.served(presets: Array(settings.server.variants.presets.keys))
        router.get("/openapi.yaml") { _, _ in openAPI.response() }
        // Liveness: the process answers. Readiness (whether to send it work) is /readyz.
        router.get("/healthz") { _, _ in
            try JSONResponse.make(["status": "ok"])
        }
        let (readiness, retryAfter) = (readiness, settings.server.retryAfterSeconds)
        router.get("/readyz") { _, _ in try readiness.response(retryAfter: retryAfter) }
        let metrics = metrics, cache = cache
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition(cache: cache))))
        }
        methods.record(router.routes)
        return router
    }
}

extension Daemon {
    /// `/ui` and what its page reads; off with `server.inspector: false`.
    func addInspector(to router: Router<ThumbdRequestContext>) {
        let api = InspectorAPI(pipeline: pipeline, prefetcher: prefetcher, history: activity, answers: metrics.answers,
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
    let fleetClient: FleetClient?
    let accessLog: AccessLog?
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        pipeline.pool.shutdown()
        await pipeline.downloader.shutdown()
        await fleetClient?.shutdown()
        cache.close()
        accessLog?.close()
        logger.info("cache closed; thumbd stopped")
    }
}
