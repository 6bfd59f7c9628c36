import AsyncHTTPClient
import Foundation
import Logging
import Metrics
import NIOCore
import ObjectStorage
import Synchronization
import ThumbCache

/// What the shared tier keeps of a thumbnail besides its bytes: what a local entry needs.
struct SharedEntryFacts: Codable {
    var contentType: String?
    var etag: String?
    var lastModified: String?
    var photo: PhotoSummary?
}

/// A thumbnail read from the shared tier.
struct SharedEntry {
    var bytes: [UInt8]
    var contentType: String?
    var validators: CacheValidators
    var photo: PhotoSummary?
}

/// The fleet's shared result tier on object storage (`cache.shared`). A thumbnail is written there
/// after it is answered, never delaying the answer, and read on a local miss before any origin is
/// asked. Each is one object, `PREFIX/SHA256(URL)/VARIANT`, its facts in `x-amz-meta-thumbd`; all
/// variants of a URL share a folder, so an eviction finds them with one listing. Nothing here fails
/// a request: a read that fails or takes longer than its timeout is a miss, a write that fails is
/// counted and forgotten; a tier that keeps failing is left alone for a while (`SharedTierBreaker`).
public final class SharedTier: Sendable {
    public let settings: SharedTierSettings
    private let target: S3Target
    private let client: HTTPClient
    /// A command's own client (`standalone`), closed by `shutdown()`; a daemon's is its downloader's.
    private let ownsClient: Bool
    private let maxBytes: Int
    private let metrics: SharedTierMetrics
    private let logger: Logger
    /// Writes admitted and not yet finished.
    private let pendingWrites = Mutex(0)
    private let breaker: SharedTierBreaker

    static let factsHeader = "x-amz-meta-thumbd"

    init(settings: SharedTierSettings, s3: S3Settings, client: HTTPClient, ownsClient: Bool = false, maxBytes: Int,
         metrics: SharedTierMetrics, logger: Logger) {
        self.settings = settings
        target = s3.target(for: settings.bucket)
        self.client = client
        self.ownsClient = ownsClient
        self.maxBytes = maxBytes
        self.metrics = metrics
        self.logger = logger
        breaker = SharedTierBreaker(settings)
        metrics.breakerState(breaker.state)
    }

    /// The tier for a command that is not a daemon (`thumbd cache evict`), with connections of its
    /// own: call `shutdown()` when done.
    public static func standalone(_ settings: SharedTierSettings, s3: S3Settings) -> SharedTier {
        SharedTier(settings: settings, s3: s3, client: HTTPClient(eventLoopGroupProvider: .singleton), ownsClient: true,
                   maxBytes: DownloadSettings().maxBytes, metrics: SharedTierMetrics(), logger: Logger(label: "thumbd.shared"))
    }

    /// What the tier did since the daemon started (the inspector shows it; /metrics has the same).
    public var counts: SharedTierCounts {
        var counts = metrics.counts
        counts.breaker = breaker.state.rawValue
        return counts
    }

    public func shutdown() async {
        if ownsClient { try? await client.shutdown() }
    }

    func folder(_ url: NormalizedURL) -> String {
        let hash = Hash256.of(Array(url.value.utf8)).hex
        return (settings.prefix.isEmpty ? "" : settings.prefix + "/") + hash + "/"
    }

    func objectKey(_ key: CacheKey) -> String { folder(key.url) + key.variant.description }

    // MARK: Reading

    /// The thumbnail for `key`, or nil: not there, the tier failed or was too slow, or it is not
    /// asked while its breaker is open (each counted).
    func read(_ key: CacheKey) async -> SharedEntry? {
        switch breaker.admitRead() {
        case .ask:
            let outcome = await fetch(key)
            note(outcome)
            return try? outcome.get()
        case .skip:
            metrics.count(.readSkipped)
            return nil
        case .probe:
            // The request that found the window over does not wait for the probe's answer.
            metrics.count(.readSkipped)
            Task { [self] in note(await fetch(key)) }
            return nil
        }
    }

    private func note(_ outcome: Result<SharedEntry?, any Error>) {
        let transition: SharedTierBreaker.Transition?
        switch outcome {
        case .success: transition = breaker.succeeded()
        case .failure: transition = breaker.failed()
        }
        guard let transition else { return }
        metrics.breakerState(breaker.state)
        let location = "\(settings)"
        switch transition {
        case .opened(let failures, let window):
            logger.warning("shared tier failed \(failures) reads in a row: not asked for \(window.secondsValue) s, misses go to the origin at once",
                           metadata: ["tier": "\(location)"])
        case .reopened(let window):
            logger.warning("shared tier still failing: not asked for \(window.secondsValue) s more", metadata: ["tier": "\(location)"])
        case .closed(let openFor):
            logger.notice("shared tier answers again: asked again after \(Int(openFor.secondsValue.rounded())) s", metadata: ["tier": "\(location)"])
        }
    }

    /// One read from the tier: the entry, nil when it is not there, or the failure (counted).
    private func fetch(_ key: CacheKey) async -> Result<SharedEntry?, any Error> {
        let request = target.request("GET", key: objectKey(key))
        do {
            let response = try await client.execute(Self.httpRequest(request), timeout: .nanoseconds(settings.readTimeout.nanoseconds))
            switch response.status.code {
            case 200:
                let body = try await response.body.collect(upTo: maxBytes)
                let facts = response.headers.first(name: Self.factsHeader).flatMap(Self.decodeFacts)
                metrics.count(.hit)
                return .success(SharedEntry(bytes: Array(body.readableBytesView), contentType: facts?.contentType ?? response.headers.first(name: "content-type"),
                                            validators: CacheValidators(etag: facts?.etag, lastModified: facts?.lastModified), photo: facts?.photo))
            case 404:
                metrics.count(.miss)
                return .success(nil)
            default:
                throw SharedTierError(status: Int(response.status.code), body: try? await response.body.collect(upTo: S3ErrorBody.maxBytes))
            }
        } catch {
            metrics.count(.readError)
            logger.notice("shared tier read failed; asking the origin", metadata: ["key": "\(objectKey(key))", "reason": "\(Self.reason(error))"])
            return .failure(error)
        }
    }

    // MARK: Writing

    /// Starts writing a thumbnail; returns at once. Dropped (and counted) when too many are pending.
    func write(_ key: CacheKey, bytes: [UInt8], contentType: String?, validators: CacheValidators, photo: PhotoSummary?) {
        guard breaker.admitsWrites else {
            metrics.count(.writeSkipped)
            return
        }
        let admitted = pendingWrites.withLock { pending in
            guard pending < settings.maxPendingWrites else { return false }
            pending += 1
            return true
        }
        guard admitted else {
            metrics.count(.writeDropped)
            return
        }
        let facts = SharedEntryFacts(contentType: contentType, etag: validators.etag, lastModified: validators.lastModified, photo: photo)
        Task { [self] in
            defer { pendingWrites.withLock { $0 -= 1 } }
            await put(objectKey(key), bytes: bytes, contentType: contentType, facts: facts)
        }
    }

    private func put(_ objectKey: String, bytes: [UInt8], contentType: String?, facts: SharedEntryFacts) async {
        var signed: [(String, String)] = [(Self.factsHeader, Self.encodeFacts(facts))]
        if let contentType { signed.append(("content-type", contentType)) }
        let payloadHash = Hash256.of(bytes).hex
        let request = target.request("PUT", key: objectKey, extraSignedHeaders: signed, payloadHash: payloadHash)
        var http = Self.httpRequest(request)
        http.method = .PUT
        http.body = .bytes(ByteBuffer(bytes: bytes))
        do {
            let response = try await client.execute(http, timeout: .seconds(30))
            guard response.status.code == 200 else {
                throw SharedTierError(status: Int(response.status.code), body: try? await response.body.collect(upTo: S3ErrorBody.maxBytes))
            }
            metrics.count(.write)
        } catch {
            metrics.count(.writeError)
            logger.notice("shared tier write failed", metadata: ["key": "\(objectKey)", "reason": "\(Self.reason(error))"])
        }
    }

    /// Waits for the writes under way (tests, and a daemon that stops).
    public func waitForWrites() async {
        while pendingWrites.withLock({ $0 }) > 0 { try? await Task.sleep(for: .milliseconds(5)) }
    }

    // MARK: Eviction

    /// Removes every variant of `url` from the tier; how many objects were removed. Throws when
    /// the tier cannot be listed or an object cannot be removed.
    public func evict(_ url: NormalizedURL) async throws -> Int {
        let listing = target.request("GET", key: nil, query: [("list-type", "2"), ("prefix", folder(url))])
        let response = try await client.execute(Self.httpRequest(listing), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 8 << 20)
        guard response.status.code == 200 else { throw SharedTierError(status: Int(response.status.code), body: body) }
        let keys = Self.listedKeys(String(buffer: body))
        for key in keys { try await delete(key) }
        metrics.count(.eviction, by: keys.count)
        return keys.count
    }

    /// Removes one thumbnail from the tier. S3's DELETE does not say whether the object was there:
    /// counted as 1.
    public func evict(_ key: CacheKey) async throws -> Int {
        try await delete(objectKey(key))
        metrics.count(.eviction)
        return 1
    }

    private func delete(_ objectKey: String) async throws {
        var request = Self.httpRequest(target.request("DELETE", key: objectKey))
        request.method = .DELETE
        let deleted = try await client.execute(request, timeout: .seconds(30))
        guard deleted.status.code == 204 || deleted.status.code == 200 else {
            throw SharedTierError(status: Int(deleted.status.code), body: try? await deleted.body.collect(upTo: S3ErrorBody.maxBytes))
        }
    }

    /// The `<Key>` elements of a ListObjectsV2 answer, XML escapes undone.
    static func listedKeys(_ xml: String) -> [String] {
        var keys: [String] = []
        var rest = xml[...]
        while let open = rest.range(of: "<Key>"), let close = rest.range(of: "</Key>", range: open.upperBound..<rest.endIndex) {
            keys.append(String(rest[open.upperBound..<close.lowerBound])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&"))
            rest = rest[close.upperBound...]
        }
        return keys
    }

    // MARK: Helpers

    static func httpRequest(_ request: S3Target.Request) -> HTTPClientRequest {
        var http = HTTPClientRequest(url: request.url)
        for (name, value) in request.headers { http.headers.add(name: name, value: value) }
        return http
    }

    static func encodeFacts(_ facts: SharedEntryFacts) -> String {
        (try? JSONEncoder().encode(facts).base64EncodedString()) ?? ""
    }

    static func decodeFacts(_ text: String) -> SharedEntryFacts? {
        Data(base64Encoded: text).flatMap { try? JSONDecoder().decode(SharedEntryFacts.self, from: $0) }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? SharedTierError { return error.description }
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            return "timed out"
        }
        return "\(error)"
    }
}

/// The tier answered something other than what was asked for.
struct SharedTierError: Error, CustomStringConvertible {
    let status: Int
    let code: String?

    init(status: Int, body: ByteBuffer?) {
        self.status = status
        code = body.map { S3ErrorBody(Array($0.readableBytesView)).code } ?? nil
    }

    var description: String { "HTTP \(status)" + (code.map { " (\($0))" } ?? "") }
}
