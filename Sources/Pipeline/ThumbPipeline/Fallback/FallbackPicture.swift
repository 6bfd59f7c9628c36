import Foundation
import ImageCodecs
import ImageCore
import ThumbCache

/// The picture answered where a photo cannot be had (`server.fallback_image`, or a preset's
/// `fallback_image`): an `<img>` tag or an app's image view shows it where a JSON problem would be
/// a broken image. Read and decoded once when the daemon starts, so a missing or unreadable file
/// stops the start with a clear message instead of failing every later request.
///
/// Its thumbnails are cached per variant like any other, under a URL of its own in the reserved
/// `.invalid` domain (RFC 2606) named by the file's SHA-256: never under the failed photo's key, so
/// the photo is made as soon as it can be had, and a changed file is a new URL.
public struct FallbackPicture: Sendable {
    public let path: String
    let bytes: [UInt8]
    /// The key's URL for its thumbnails.
    public let url: NormalizedURL

    public init(path: String, limits: DecodeLimits = DecodeLimits()) throws(FallbackPictureError) {
        let bytes: [UInt8]
        do { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw FallbackPictureError(path: path, reason: "cannot be read: \(error.localizedDescription)")
        }
        do { _ = try ImageCodecs.decode(bytes, limits: limits) } catch {
            throw FallbackPictureError(path: path, reason: "is not a picture thumbd can read: \(error.code.rawValue): \(error.message)")
        }
        self.path = path
        self.bytes = bytes
        do { url = try NormalizedURL("https://fallback.thumbd.invalid/\(Hash256.of(bytes).hex.prefix(32))") } catch {
            preconditionFailure("the fallback URL is well formed: \(error)")
        }
    }

    /// The failed photo's variant, made from this picture.
    public func key(for failed: CacheKey) -> CacheKey { CacheKey(url: url, variant: failed.variant) }

    /// The code of a failure the picture stands in for, or nil for one it must not hide.
    public static func standsIn(for error: any Error) -> String? {
        switch error {
        case let error as DownloadError: covers(error.code) ? error.code.rawValue : nil
        case let error as ImageError: covers(error.code) ? error.code.rawValue : nil
        default: nil
        }
    }

    /// The failures' codes the picture stands in for (a prefetch item from another node carries only its code).
    public static let coveredCodes: Set<String> = Set(DownloadError.Code.allCases.filter(covers).map(\.rawValue)
                                                      + ImageError.Code.allCases.filter(covers).map(\.rawValue))

    /// The photo could not be had: the origin's 4xx or 5xx, unreachable, too slow, too large, a
    /// missing or refused object. A client's own mistake (a bad URL, a destination the policy
    /// blocks, a URL refused, a bucket not listed) keeps its problem.
    static func covers(_ code: DownloadError.Code) -> Bool {
        switch code {
        case .invalidURL, .destinationBlocked, .urlRefused, .bucketNotAllowed: false
        case .originStatus, .tooManyRedirects, .originTimeout, .originTooLarge, .originTruncated, .originUnreachable, .originTLS,
             .insecureRedirect, .originHeadersTooLarge, .objectNotFound, .objectAccessDenied: true
        }
    }

    /// A corrupt, truncated, oversized or unsupported image; not thumbd's own failure to encode,
    /// nor a request's mistake.
    static func covers(_ code: ImageError.Code) -> Bool {
        switch code {
        case .corruptImage, .truncatedImage, .unsupportedFormat, .pixelLimitExceeded: true
        case .encodeFailed, .invalidRequest, .budgetUnreachable: false
        }
    }
}

public struct FallbackPictureError: Error, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "the fallback image \(path) \(reason)" }
}
