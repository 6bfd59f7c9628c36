import ThumbVariant
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ThumbCache
import ThumbPipeline
import ThumbFleet
import ThumbServer
import ThumbdConfig

/// Where a prefetch job runs: in the daemon the configuration names (if it answers), or here, in
/// this process, against the same cache directory.
protocol PrefetchBackend: Sendable {
    var label: String { get }
    func submit(_ job: PrefetchJobRequest) async throws -> PrefetchStatus
    func status(_ id: String) async throws -> PrefetchStatus
    /// Cancels the job; its last report when the backend waits for its work to stop (nil: poll).
    func cancel(_ id: String) async throws -> PrefetchStatus?
    func close() async
}

/// The job as the command line gave it.
struct PrefetchJobRequest: Sendable {
    var source: Prefetcher.Source
    /// The page file's JSON text, sent as it is to a daemon.
    var pageJSON: Data?
    /// One variant for each size (`--size` given several times): each photo's are made together.
    var variants: [Variant]
    var includeImages: Bool

    /// The body of `POST /v1/prefetch`.
    func body() throws -> Data {
        var object: [String: Any]
        switch source {
        case .urls(let urls): object = ["urls": urls]
        case .pageURL(let url, let pages, _): object = ["page_url": url, "pages": pages]
        case .page:
            object = (try pageJSON.flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: Any] }) ?? [:]
        }
        // As a query writes them (a preset by name: a daemon with server.only_presets takes nothing
        // else), with JSON's numbers and booleans where a daemon from before shapes expects them.
        for (name, value) in variants.first?.parameters ?? [] {
            switch name {
            case "trim": object[name] = value == "1"
            case "size", "q", "max_bytes": object[name] = Int(value) ?? value
            default: object[name] = value
            }
        }
        // Several sizes: the daemon's `sizes`, the variants being alike but for their size.
        if variants.count > 1 {
            object["size"] = nil
            object["sizes"] = variants.map { variant -> Any in
                let size = variant.parameters.first { $0.name == "size" }?.value ?? ""
                return Int(size) ?? size
            }
        }
        object["include_images"] = includeImages
        return try JSONSerialization.data(withJSONObject: object)
    }
}

struct PrefetchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A running daemon, over HTTP.
struct DaemonBackend: PrefetchBackend {
    let base: String
    let adminToken: String?
    var label: String { "the daemon at \(base)" }

    /// The daemon at `host:port`, if `/healthz` answers within three seconds (a busy daemon is
    /// still the one to use; a dead port refuses at once).
    static func find(server: ServerSettings, adminToken: String?) async -> DaemonBackend? {
        let base = server.localBaseURL
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(3))
            _ = try await response.body.collect(upTo: 4096)
            return response.status == .ok ? DaemonBackend(base: base, adminToken: adminToken) : nil
        } catch {
            return nil
        }
    }

    func submit(_ job: PrefetchJobRequest) async throws -> PrefetchStatus {
        var request = HTTPClientRequest(url: base + "/v1/prefetch")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let adminToken { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        request.body = .bytes(ByteBuffer(data: try job.body()))
        let status = try await decode(try await HTTPClient.shared.execute(request, timeout: .seconds(30)), expecting: 202)
        // A daemon older than `sizes` ignores it and makes its default size once a URL: said, not
        // reported as done. (A list's count is known at once; a page's grows as it is fetched.)
        if job.variants.count > 1, case .urls(let urls) = job.source, status.total != Set(urls).count * job.variants.count {
            _ = try? await cancel(status.id)
            throw PrefetchFailure("\(label) holds \(status.total) thumbnails for \(Set(urls).count) URLs at \(job.variants.count) sizes: "
                                  + "it predates several sizes a job; upgrade it, or run with --in-process")
        }
        return status
    }

    func status(_ id: String) async throws -> PrefetchStatus {
        try await decode(try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/v1/prefetch/\(id)"), timeout: .seconds(30)),
                         expecting: 200)
    }

    /// DELETE answers once the job's work has stopped, with its last report, and forgets the job.
    func cancel(_ id: String) async throws -> PrefetchStatus? {
        var request = HTTPClientRequest(url: base + "/v1/prefetch/\(id)")
        request.method = .DELETE
        if let adminToken { request.headers.add(name: "Authorization", value: "Bearer \(adminToken)") }
        return try await decode(try await HTTPClient.shared.execute(request, timeout: .seconds(30)), expecting: 200)
    }

    func close() async {}

    private func decode(_ response: HTTPClientResponse, expecting status: Int) async throws -> PrefetchStatus {
        let body = Data(buffer: try await response.body.collect(upTo: 32 << 20))
        guard Int(response.status.code) == status else {
            let problem = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
            let code = problem?["code"] as? String ?? "http_\(response.status.code)"
            throw PrefetchFailure("\(label) refused the job: \(code): \(problem?["detail"] as? String ?? response.status.reasonPhrase)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(PrefetchStatus.self, from: body)
    }
}

/// No daemon answers: the same pipeline in this process, on the same cache directory.
final class InProcessBackend: PrefetchBackend {
    let label: String
    private let cache: TwoTierCache
    private let pipeline: ThumbnailPipeline
    private let prefetcher: Prefetcher
    private let fleetClient: FleetClient?

    init(settings: DaemonSettings, cacheDescription: String) throws {
        var logger = Logger(label: "thumbd.prefetch")
        logger.logLevel = .error
        cache = try TwoTierCache.open(memory: MemoryCache(limits: settings.memoryLimits), diskDirectory: settings.cacheDirectory,
                                      diskLimits: settings.diskLimits)
        pipeline = ThumbnailPipeline(cache: cache, downloader: Downloader(settings: settings.download, logger: logger),
                                     settings: settings.pipeline, logger: logger)
        // In a fleet the items still go through the entry point, to the nodes that will serve them.
        let fleet = settings.fleetPrefetch()
        fleetClient = fleet?.client
        prefetcher = Prefetcher(pipeline: pipeline, settings: settings.prefetch, maker: fleet?.maker, logger: logger)
        label = fleet.map { "this process, each item through the fleet's entry point \($0.maker.entry)" }
            ?? "this process (no daemon answered), cache \(cacheDescription)"
    }

    func submit(_ job: PrefetchJobRequest) async throws -> PrefetchStatus {
        do { return try prefetcher.submit(job.source, variants: job.variants) } catch {
            throw PrefetchFailure("\(error.code.rawValue): \(error.message)")
        }
    }

    func status(_ id: String) async throws -> PrefetchStatus {
        guard let status = prefetcher.status(id) else { throw PrefetchFailure("the job \(id) is gone") }
        return status
    }

    func cancel(_ id: String) async throws -> PrefetchStatus? {
        prefetcher.cancel(id)
        return nil
    }

    func close() async {
        pipeline.pool.shutdown()
        await pipeline.downloader.shutdown()
        await fleetClient?.shutdown()
        cache.close()
    }
}
