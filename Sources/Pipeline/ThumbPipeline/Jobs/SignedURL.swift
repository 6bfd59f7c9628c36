import Foundation
import ThumbCache
import ThumbVariant

/// A photo's URL as a request gave it, when its cache key leaves part of it out: a presigned URL
/// without its signature parameters. The download uses this URL; the cache, the key's.
public struct SignedURL: Sendable, Equatable {
    public let url: String
    /// Whether a hit is answered only once the origin has accepted `url` itself.
    public let confirmsHits: Bool
}

/// The check that keeps a key without the signature from opening private photos: before a
/// thumbnail made from another URL (another signature, or none) is answered for a signed one, the
/// origin is asked with this request's URL and the stored validator. 304 (no body, one round trip):
/// answered. 200: the object changed, and the new thumbnail is made from what came. 401 or 403:
/// `url_refused`, and the thumbnail is not sent.
extension ThumbnailPipeline {
    /// The key's URL for `url`, and the signed URL to fetch when the key left parameters out.
    public func keyed(_ url: NormalizedURL) -> (key: NormalizedURL, signed: SignedURL?) {
        guard let key = settings.unkeyedQuery.keyed(url) else { return (url, nil) }
        return (key, SignedURL(url: url.value, confirmsHits: settings.confirmUnkeyedHits))
    }

    func confirmed(_ result: PipelineResult, _ target: KeyedVariant, priority: WorkPriority, signed: SignedURL) async throws -> PipelineResult {
        metrics.confirmations.increment()
        let cell = PriorityCell(priority)
        let validators = result.validators.isEmpty ? nil : result.validators
        do {
            switch try await downloader.download(signed.url, validators: validators, priority: cell) {
            case .notModified:
                var confirmed = result
                confirmed.revalidated = true
                confirmed.fetchedFrom = signed.url
                return confirmed
            case .fetched(let body):
                metrics.confirmationsChanged.increment()
                return try await process(target.key, priority: cell, variant: target.variant, source: body, keepOriginal: true)
            }
        } catch let error as DownloadError {
            metrics.confirmationsRefused.increment()
            throw Self.refusal(error)
        }
    }

    /// An origin's 401 or 403 for a signed URL is the URL's fault (expired, forged): `url_refused`.
    static func refusal(_ error: DownloadError) -> DownloadError {
        guard error.code == .objectAccessDenied || (error.code == .originStatus && [401, 403].contains(error.originStatus ?? 0)) else {
            return error
        }
        return DownloadError(.urlRefused, "the origin refused this URL (HTTP \(error.originStatus ?? 403)): its signature has expired or does not "
                             + "match, so the thumbnail is not served", originStatus: error.originStatus)
    }
}
