import ColorManagement
import Foundation
import ImageCore
import ThumbCache
import ThumbVariant
import Thumbnailer

/// Limits of the making side. Keys of `pipeline:` and `decode:` in config/thumbd.yaml.
public struct PipelineSettings: Sendable {
    /// Misses being made at once (downloading, queued for a core, or being decoded). A new miss
    /// past this is refused as busy (HTTP 503 with Retry-After); joining a job already under way
    /// is always allowed.
    public var maxJobs: Int = 256
    /// Threads decoding, resizing and encoding; 0 means one per core.
    public var workerThreads: Int = 0
    public var decodeLimits: DecodeLimits = DecodeLimits()
    public var decodeHeadroom: Double = ThumbnailRequest.defaultDecodeHeadroom
    /// How far from the border's colour a pixel may be and still be trimmed (`thumbnail.trim_threshold`).
    public var trimThreshold: Int = ThumbnailRequest.defaultTrimThreshold
    /// Keep each downloaded original on disk (its own budget), so a new size of an image already
    /// fetched costs no download.
    public var keepOriginals: Bool = true
    /// libavif's encoder speed for AVIF thumbnails (0...10).
    public var avifSpeed: Int = EncodeSettings.defaultAVIFSpeed
    /// Query parameters left out of cache keys (`sources.unkeyed_query`): every presigned URL of
    /// one object is one entry and one download. The download still uses the URL as given.
    public var unkeyedQuery: UnkeyedQuery = .defaults
    /// A hit for a URL whose key left a parameter out is answered only after the origin accepts
    /// that very URL (`sources.confirm_unkeyed_hits`): a conditional GET, 304 without a body.
    public var confirmUnkeyedHits: Bool = true
    /// The fleet's shared result tier (`cache.shared`); nil: none.
    public var shared: SharedTierSettings?

    public init() {}

    /// The thumbnail maker these settings describe.
    public var maker: ThumbnailMaker {
        ThumbnailMaker(limits: decodeLimits, trimThreshold: trimThreshold, decodeHeadroom: decodeHeadroom,
                       encoder: EncoderOptions(avifSpeed: avifSpeed))
    }
}

/// Every job slot is taken: try again shortly.
public struct PipelineBusy: Error, Sendable, CustomStringConvertible {
    public let jobs: Int
    public var description: String { "all \(jobs) job slots are busy making other thumbnails; retry shortly" }
}

/// What the pipeline hands back to every waiter.
public struct PipelineResult: Sendable {
    public enum Source: String, Sendable {
        case memory, disk
        /// Made now: downloaded (or taken from a kept original), decoded, resized, encoded.
        case miss
        /// Made by another node (or before a restart), read from the shared tier (`cache.shared`).
        case shared
    }

    public var bytes: [UInt8]
    public var contentType: String
    /// SHA-256 hex of the bytes (the HTTP ETag).
    public var checksum: String
    public var source: Source
    /// A stale entry the origin confirmed with 304 Not Modified.
    public var revalidated: Bool = false
    /// A stale entry served because its origin failed while revalidating it.
    public var servedStale: Bool = false
    /// The photo's displayed size, placeholder and colour handling (nil for entries made before
    /// thumbd kept them).
    public var photo: PhotoSummary?
    /// The origin's validators for the photo it was made from (a hit's, or the download's).
    public var validators: CacheValidators = CacheValidators()
    /// The URL whose download made it, now; nil for a hit or a kept original.
    public var fetchedFrom: String?
}

extension PipelineResult {
    public init(bytes: [UInt8], contentType: String, checksum: String, source: Source, photo: PhotoSummary? = nil) {
        self.bytes = bytes
        self.contentType = contentType
        self.checksum = checksum
        self.source = source
        self.photo = photo
    }

    /// A cache hit as an answer.
    public init(_ hit: CacheHit) {
        self.init(bytes: hit.bytes, contentType: hit.contentType ?? "application/octet-stream", checksum: hit.checksum,
                  source: hit.tier == .memory ? .memory : .disk, photo: hit.metadata?.photo)
        validators = hit.validators
    }
}

extension PhotoSummary {
    /// What a thumbnail's making learned about its photo, as the cache keeps it.
    public init(_ photo: PhotoFacts, color: ColorOutcome) {
        self.init(width: photo.width, height: photo.height, thumbHash: photo.thumbHash.map { Data($0) },
                  color: color == .sRGB ? nil : color.headerValue)
    }
}
