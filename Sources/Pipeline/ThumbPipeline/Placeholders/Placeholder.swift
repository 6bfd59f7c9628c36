import ThumbVariant
import Foundation
import ImagePlaceholder
import ThumbCache

/// A photo's placeholder as clients get it (`GET /v1/placeholder`, prefetch reports, `thumbd
/// thumbnail --placeholder`): its displayed size, its ThumbHash and the colour a grid cell can be
/// painted with until the thumbnail arrives.
public struct Placeholder: Sendable, Codable, Equatable {
    public var url: String
    /// The photo as displayed (after its EXIF orientation).
    public var width: Int
    public var height: Int
    /// ThumbHash, base64 (standard alphabet, padded): decode it with any ThumbHash library.
    public var thumbhash: String?
    /// The ThumbHash's average colour, `#rrggbb`.
    public var averageColor: String?
    /// `srgb`, or how the photo's colours were converted (`converted; from="Display P3"`) or why
    /// its profile was ignored.
    public var color: String

    public init(url: String, photo: PhotoSummary) {
        self.url = url
        width = photo.width
        height = photo.height
        thumbhash = photo.thumbHash?.base64EncodedString()
        averageColor = photo.thumbHash.flatMap { ThumbHash.averageColor([UInt8]($0)) }.map { rgba in
            "#" + [rgba.r, rgba.g, rgba.b].map { String(format: "%02x", $0) }.joined()
        }
        color = photo.color ?? "srgb"
    }

    /// The placeholder of the photo a cache key names, under the URL a client may be shown.
    public init(key: CacheKey, photo: PhotoSummary) {
        self.init(url: key.url.shown, photo: photo)
    }
}

extension ThumbnailPipeline {
    /// The placeholder of the photo at `url`: from the cached thumbnail `target` names when it has
    /// one, otherwise made with it (the same coalesced job as `thumbnail`). A thumbnail cached
    /// before thumbd kept photo summaries is made again.
    public func placeholder(_ target: KeyedVariant, priority: WorkPriority, signed: SignedURL? = nil) async throws -> Placeholder {
        let key = target.key
        var result = try await thumbnail(target, priority: priority, signed: signed)
        if result.photo == nil { result = try await make(target, priority: priority, stale: nil, signed: signed) }
        guard let photo = result.photo else {
            // Only a thumbnail made by another thumbd sharing nothing with this one could get here.
            throw PlaceholderUnavailable(url: key.url.shown)
        }
        return Placeholder(key: key, photo: photo)
    }
}

public struct PlaceholderUnavailable: Error, Sendable, CustomStringConvertible {
    public let url: String
    public var description: String { "no placeholder could be made for \(url)" }
}
