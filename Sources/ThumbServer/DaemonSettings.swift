import Foundation
import Logging
import ThumbCache
import ThumbPipeline

/// Everything `thumbd serve` is configured with (config/thumbd.yaml, then THUMBD_* variables).
public struct DaemonSettings: Sendable {
    public var server = ServerSettings()
    public var download = DownloadSettings()
    public var pipeline = PipelineSettings()
    public var prefetch = PrefetchSettings()
    /// nil: memory only.
    public var cacheDirectory: URL?
    public var memoryLimits = MemoryCacheLimits()
    public var diskLimits = DiskCacheLimits()
    public var logLevel: Logger.Level = .info

    public init() {}
}
