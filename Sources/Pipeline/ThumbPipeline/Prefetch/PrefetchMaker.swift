import ThumbVariant
import ThumbCache

/// Makes one item of a prefetch job. On a single node that is this daemon's own pipeline; in a
/// fleet it is a request through the balancer (`fleet.entry`), so that each thumbnail is made on
/// the node that will be asked for it.
public protocol PrefetchMaker: Sendable {
    /// Makes (or finds) the thumbnail of `url`. Throws `CancellationError` when the job is cancelled,
    /// any other error when the item failed (its code comes from `Prefetcher.code(of:)`).
    func make(_ url: String, variant: Variant) async throws -> PrefetchOutcome
}

public enum PrefetchOutcome: Sendable, Equatable {
    /// Made now by this job, this many bytes.
    case made(bytes: Int, placeholder: Placeholder?)
    /// Already in a cache, or made meanwhile by someone else.
    case alreadyCached(placeholder: Placeholder?)

    var placeholder: Placeholder? {
        switch self {
        case .made(_, let placeholder), .alreadyCached(let placeholder): placeholder
        }
    }
}

/// A prefetch item failed for a reason the maker describes with a stable code (for example the
/// node behind the balancer answered with a problem document).
public struct PrefetchItemError: Error, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// Items made by this daemon's pipeline, below interactive requests in every queue.
struct LocalPrefetchMaker: PrefetchMaker {
    let pipeline: ThumbnailPipeline

    func make(_ url: String, variant: Variant) async throws -> PrefetchOutcome {
        let target: KeyedVariant
        let signed: SignedURL?
        do {
            let keyed = pipeline.keyed(try NormalizedURL(url))
            (target, signed) = (KeyedVariant(variant, url: keyed.key), keyed.signed)
        } catch {
            throw PrefetchItemError(code: "invalid_url", message: error.message)
        }
        // A prefetch answers no one, so a cached copy needs no check of a signed URL.
        let key = target.key
        if let fresh = pipeline.cache.freshMetadata(key) {
            return .alreadyCached(placeholder: fresh.photo.map { Placeholder(key: key, photo: $0) })
        }
        while true {
            do {
                let result = try await pipeline.thumbnail(target, priority: .prefetch, signed: signed.map { SignedURL(url: $0.url, confirmsHits: false) })
                let placeholder = result.photo.map { Placeholder(key: key, photo: $0) }
                // A stale copy the origin confirmed (304), or one made meanwhile, was not made by this job.
                return result.source == .miss ? .made(bytes: result.bytes.count, placeholder: placeholder) : .alreadyCached(placeholder: placeholder)
            } catch is PipelineBusy {
                // Interactive requests keep their slots: wait for room rather than fail.
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
