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
