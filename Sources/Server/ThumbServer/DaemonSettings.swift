import Foundation
import Logging
import ThumbCache
import ThumbFleet
import ThumbPipeline
import UploadPreparation

/// Everything `thumbd serve` is configured with (config/thumbd.yaml, then THUMBD_* variables).
public struct DaemonSettings: Sendable {
    public var server = ServerSettings()
    public var download = DownloadSettings()
    public var pipeline = PipelineSettings()
    public var prefetch = PrefetchSettings()
    /// The balancer's entry point and the other nodes, when this daemon is one of a fleet.
    public var fleet = FleetSettings()
    /// The rules for `POST /v1/uploads/prepare` (and the defaults of `thumbd prepare`).
    public var uploads = UploadSettings()
    /// The largest upload request body accepted, all parts together.
    public var maxUploadRequestBytes = 60_000_000
    /// Uploads prepared at once; one more is 503 `busy` (each holds its originals in memory).
    public var maxConcurrentUploads = 4
    /// nil: memory only.
    public var cacheDirectory: URL?
    public var memoryLimits = MemoryCacheLimits()
    public var diskLimits = DiskCacheLimits()
    public var logLevel: Logger.Level = .info

    public init() {}
}

extension DaemonSettings {
    /// With `fleet.entry` set, prefetch items go through the balancer, which sends each URL to its
    /// home node; their queries are written as every client of the fleet writes them (canonical,
    /// and signed when the fleet serves signed URLs). nil for a single node. The client must be
    /// shut down when the prefetcher is done.
    public func fleetPrefetch() -> (maker: EntryPointMaker, client: FleetClient)? {
        guard let entry = fleet.entry else { return nil }
        let client = FleetClient(settings: fleet)
        let signer = server.signingKey.map(URLSigner.init(key:))
        let maker = EntryPointMaker(entry: entry, client: client) { parameters in
            signer?.signedQuery(parameters) ?? URLSigner.canonicalQuery(parameters)
        }
        return (maker, client)
    }
}
