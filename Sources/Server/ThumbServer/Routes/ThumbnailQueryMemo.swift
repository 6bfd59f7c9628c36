import ThumbVariant
import Synchronization
import ThumbCache
import ThumbPipeline

/// Validated thumbnail queries by their raw text. Parsing (percent-decoding, URL normalization,
/// signature check, the key's SHA-256) costs more than serving a hit from memory, and hot
/// thumbnails are asked for with the same query again and again, so each distinct query is parsed
/// once. Only valid queries of hits are kept; the table is emptied when it reaches its size. `package` for
/// the query fuzz target (Fuzz/), which parses as the fast path does.
package final class ThumbnailQueryMemo: Sendable {
    /// A class: a hit takes it from the table with one retain, not one per string inside it.
    package final class Parsed: Sendable {
        let query: ThumbnailQuery
        /// The key for clients whose Accept does not take WebP (or any client, for explicit formats).
        let plainKey: CacheKey
        /// `format=auto` for clients that accept AVIF, and for those that accept WebP but not AVIF.
        let avifKey: CacheKey?
        let webpKey: CacheKey?
        /// The URL as given, when the keys leave its signature out (`PipelineSettings.unkeyedQuery`).
        let signed: SignedURL?

        init(query: ThumbnailQuery, plainKey: CacheKey, avifKey: CacheKey?, webpKey: CacheKey?, signed: SignedURL? = nil) {
            (self.query, self.plainKey, self.avifKey, self.webpKey, self.signed) = (query, plainKey, avifKey, webpKey, signed)
        }

        /// A hit for it is answered only after its origin accepts the URL: never by the fast path.
        var confirmsHits: Bool { signed?.confirmsHits == true }

        var variesByAccept: Bool { webpKey != nil }

        package func key(accept: String?) -> CacheKey {
            guard let webpKey, let avifKey, let accept else { return plainKey }
            // The cheap test first: most requests of a hot thumbnail come from one kind of browser.
            if accept.contains("avif"), Variant.accepts("image/avif", accept) { return avifKey }
            if accept.contains("webp"), Variant.accepts("image/webp", accept) { return webpKey }
            return plainKey
        }

        package func spec(for key: CacheKey) -> Variant {
            query.variant.negotiated(accept: key == avifKey ? "image/avif" : key == webpKey ? "image/webp" : nil)
        }
    }

    private let settings: ServerSettings
    private let signer: URLSigner?
    /// The pipeline's rule for which query parameters keys leave out.
    private let keyed: @Sendable (NormalizedURL) -> (key: NormalizedURL, signed: SignedURL?)
    private let table = Mutex<[String: Parsed]>([:])
    static let capacity = 20_000

    package init(settings: ServerSettings, keyed: @escaping @Sendable (NormalizedURL) -> (key: NormalizedURL, signed: SignedURL?) = { ($0, nil) }) {
        self.settings = settings
        self.keyed = keyed
        signer = settings.signingKey.map(URLSigner.init(key:))
    }

    package func parse(_ rawQuery: String?) throws -> Parsed {
        try lookUp(rawQuery).parsed
    }

    /// The query parsed, from the table when it is there (`remembered`). Nothing is added here:
    /// `remember` adds a query once it has been a hit, so a stream of misses (each a new query,
    /// asked once) cannot grow the table, only the hot set fills it.
    func lookUp(_ rawQuery: String?) throws -> (parsed: Parsed, remembered: Bool) {
        let raw = rawQuery ?? ""
        if let known = table.withLock({ $0[raw] }) { return (known, true) }
        let query = try ThumbnailQuery(QueryParameters(rawQuery), settings: settings, signer: signer)
        let (url, signed) = keyed(query.url)
        let negotiated = { (type: String) in
            query.variant.format == .auto ? CacheKey(url: url, variant: query.variant.negotiated(accept: type).cacheVariant) : nil
        }
        let parsed = Parsed(query: query, plainKey: CacheKey(url: url, variant: query.variant.cacheVariant),
                            avifKey: negotiated("image/avif"), webpKey: negotiated("image/webp"), signed: signed)
        return (parsed, false)
    }

    var rememberedCount: Int { table.withLock { $0.count } }

    func remember(_ rawQuery: String?, _ parsed: Parsed) {
        table.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table[rawQuery ?? ""] = parsed
        }
    }
}
