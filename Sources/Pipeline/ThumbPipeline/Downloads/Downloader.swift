import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NetworkGuard
import ObjectStorage
import Synchronization
import ThumbCache

/// Fetches origin images within the limits of `DownloadSettings`.
///
/// Redirects are followed here, not by the HTTP client, so that every hop goes through the address
/// guard; and each connection goes to the very address the guard approved (the request is sent
/// to that IP with the original `Host`), so a second DNS answer cannot point it elsewhere.
public final class Downloader: Sendable {
    public let settings: DownloadSettings
    /// Plain HTTP origins (pinned by URL) and object stores (the operator's endpoint, by name).
    let client: HTTPClient
    private let eventLoopGroup: any EventLoopGroup
    let slots: DownloadSlots
    private let resolver: HostResolver
    private let logger: Logger
    private let metrics: DownloadMetrics
    private let isShutDown = Mutex(false)

    public init(settings: DownloadSettings, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                metrics: DownloadMetrics = DownloadMetrics(), logger: Logger = Logger(label: "thumbd.download")) {
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
        resolver = settings.resolver
        client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: Self.clientConfiguration(settings))
        slots = DownloadSlots(total: settings.maxConcurrent, perHost: settings.maxPerHost)
        self.logger = logger
        self.metrics = metrics
    }

    static func clientConfiguration(_ settings: DownloadSettings, pinning: [String: String] = [:]) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .nanoseconds(settings.connectTimeout.nanoseconds),
                                                                 read: .nanoseconds(settings.totalTimeout.nanoseconds))
        configuration.decompression = .disabled
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.maxPerHost
        configuration.dnsOverride = pinning
        if !pinning.isEmpty {
            // The pinned client is the HTTPS one. A certificate that fails its check fails the same
            // way on every attempt: retrying until the connect timeout would only delay the answer.
            configuration.connectionPool.retryConnectionEstablishment = false
        }
        if let caFile = settings.caFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(caFile)]
            configuration.tlsConfiguration = tls
        }
        return configuration
    }

    /// Downloads in flight now (holding a slot).
    public var inFlight: Int { slots.inFlight }

    /// Closes the connection pool; in-flight downloads fail.
    public func shutdown() async {
        guard isShutDown.withLock({ done in defer { done = true }; return !done }) else { return }
        try? await client.shutdown()
    }

    /// A downloader dropped without `shutdown()` (a failed start, a test that threw) still closes
    /// its pool, rather than leaking it.
    deinit {
        if !isShutDown.withLock({ $0 }) { client.shutdown { _ in } }
    }

    /// GETs `url`. With `validators`, the request is conditional and a 304 gives `.notModified`.
    /// Cancelling the calling task closes the connection.
    public func download(_ url: String, validators: CacheValidators? = nil,
                         priority: PriorityCell = PriorityCell(.interactive)) async throws -> DownloadOutcome {
        let start = ContinuousClock.now
        do {
            let outcome = try await withTimeout(settings.totalTimeout) {
                if S3Location.isS3(url) {
                    return try await self.fetchObject(try Self.location(url), validators: validators, priority: priority)
                }
                return try await self.follow(try OriginURL(url), validators: validators, priority: priority)
            }
            if case .fetched(let body) = outcome { metrics.bytes.increment(by: Int64(body.bytes.count)) }
            metrics.duration.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
            return outcome
        } catch let error as DownloadError {
            metrics.failed(error.code)
            logger.notice("download failed", metadata: ["url": "\(url)", "code": "\(error.code.rawValue)", "reason": "\(error.message)"])
            throw error
        }
    }

    private func follow(_ first: OriginURL, validators: CacheValidators?, priority: PriorityCell) async throws -> DownloadOutcome {
        var current = first
        var hops = 0
        while true {
            switch try await fetchOnce(current, validators: validators, priority: priority) {
            case .done(let outcome):
                return outcome
            case .redirect(let location):
                hops += 1
                guard hops <= settings.maxRedirects else {
                    throw DownloadError(.tooManyRedirects, "more than \(settings.maxRedirects) redirects, starting at \(first)")
                }
                let next = try current.resolving(location)
                if current.isDowngrade(to: next), !settings.allowInsecureRedirects {
                    throw DownloadError(.insecureRedirect, "\(current) redirected to \(next), from https to plain http")
                }
                current = next
            }
        }
    }

    private enum Hop {
        case done(DownloadOutcome)
        case redirect(String)
    }

    private func fetchOnce(_ url: OriginURL, validators: CacheValidators?, priority: PriorityCell) async throws -> Hop {
        let destination: GuardedDestination
        do {
            destination = try await settings.policy.resolveGuarded(host: url.host, port: url.port, resolver: resolver)
        } catch let blocked as DestinationBlocked {
            throw DownloadError(.destinationBlocked, blocked.description)
        } catch is CancellationError {
            throw CancellationError()
        } catch let failure as ResolutionError {
            // Its text already says "cannot resolve HOST: why".
            throw DownloadError(.originUnreachable, failure.description)
        } catch {
            throw DownloadError(.originUnreachable, "cannot resolve \(url.host): \(error)")
        }

        try await slots.acquire(host: url.host, priority: priority)
        defer { slots.release(host: url.host) }
        metrics.inFlight.increment()
        defer { metrics.inFlight.decrement() }

        var request = HTTPClientRequest(url: url.scheme == "http" ? url.pinned(to: destination.address) : url.text)
        request.headers.add(name: "Host", value: url.hostHeader)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept", value: "image/webp,image/png,image/jpeg,image/*;q=0.8")
        if let etag = validators?.etag { request.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = validators?.lastModified { request.headers.add(name: "If-Modified-Since", value: lastModified) }

        // Plain HTTP is pinned by URL; HTTPS needs the name for SNI and certificate checks, so it
        // gets a client whose DNS override maps the name to the checked address.
        let pinnedTLSClient: HTTPClient? = url.scheme == "https"
            ? HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup),
                         configuration: Self.clientConfiguration(settings, pinning: [url.host: destination.address.description]))
            : nil
        defer { if let pinnedTLSClient { Task { try? await pinnedTLSClient.shutdown() } } }

        let response: HTTPClientResponse
        do {
            response = try await (pinnedTLSClient ?? client).execute(request, deadline: .distantFuture)
        } catch {
            throw Self.translate(error, url: url, phase: "connecting")
        }
        try Self.checkHeadSize(response.headers, url: url)
        let status = Int(response.status.code)
        switch status {
        case 301, 302, 303, 307, 308:
            guard let location = response.headers.first(name: "location") else {
                throw DownloadError(.originStatus, "\(url) answered \(status) without a Location", originStatus: status)
            }
            return .redirect(location)
        case 304 where validators != nil:
            return .done(.notModified(Self.validators(response.headers) ?? validators ?? CacheValidators()))
        case 200:
            break
        default:
            throw DownloadError(.originStatus, "\(url) answered \(status)", originStatus: status)
        }

        return .done(.fetched(try await body(of: response, from: url.text)))
    }

    /// A 200 answer's body, within the byte limit, with its type and validators.
    func body(of response: HTTPClientResponse, from url: String) async throws -> OriginBody {
        let declared = response.headers.first(name: "content-length").flatMap { Int($0) }
        if let declared, declared > settings.maxBytes {
            throw DownloadError(.originTooLarge, "\(url) is \(declared) bytes; the limit is \(settings.maxBytes)")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(declared ?? 256 * 1024, settings.maxBytes))
        do {
            for try await chunk in response.body {
                guard bytes.count + chunk.readableBytes <= settings.maxBytes else {
                    throw DownloadError(.originTooLarge, "\(url) sent more than the limit of \(settings.maxBytes) bytes")
                }
                bytes.append(contentsOf: chunk.readableBytesView)
            }
        } catch let error as DownloadError {
            throw error
        } catch {
            throw Self.translate(error, url: url, phase: "reading the body")
        }
        if let declared, bytes.count < declared {
            throw DownloadError(.originTruncated, "\(url) ended after \(bytes.count) of \(declared) bytes")
        }
        return OriginBody(bytes: bytes, contentType: response.headers.first(name: "content-type"),
                          validators: Self.validators(response.headers) ?? CacheValidators(), finalURL: url)
    }

    static func validators(_ headers: HTTPHeaders) -> CacheValidators? {
        let etag = headers.first(name: "etag"), lastModified = headers.first(name: "last-modified")
        guard etag != nil || lastModified != nil else { return nil }
        return CacheValidators(etag: etag, lastModified: lastModified)
    }
}

/// Runs `operation`, and fails it with `origin_timeout` if it takes longer than `limit` (the task is
/// cancelled, which closes its connection).
func withTimeout<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw DownloadError(.originTimeout, "the download took longer than \(limit.shortText)")
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
