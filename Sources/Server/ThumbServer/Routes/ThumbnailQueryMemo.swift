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
        /// The variant as asked and its key: every client's for an explicit format, and for
        /// `format=auto` that of clients taking JPEG and PNG and naming neither AVIF nor WebP.
        package let plain: KeyedVariant
        /// `format=auto` as each other kind of client is answered (`Variant.negotiated(accept:)`),
        /// each with its own key; empty for explicit formats.
        let negotiated: [Variant.Format: KeyedVariant]
        /// The URL as given, when the keys leave its signature out (`PipelineSettings.unkeyedQuery`).
        let signed: SignedURL?

        init(query: ThumbnailQuery, url: NormalizedURL, signed: SignedURL? = nil) {
            (self.query, self.signed) = (query, signed)
            plain = KeyedVariant(query.variant, url: url)
            var negotiated: [Variant.Format: KeyedVariant] = [:]
            if query.variant.format == .auto {
                for format in [Variant.Format.avif, .webp, .jpeg, .png] {
                    var variant = query.variant
                    variant.format = format
                    negotiated[format] = KeyedVariant(variant, url: url)
                }
            }
            self.negotiated = negotiated
        }

        /// A hit for it is answered only after its origin accepts the URL: never by the fast path.
        var confirmsHits: Bool { signed?.confirmsHits == true }

        var variesByAccept: Bool { !negotiated.isEmpty }

        /// What a client with this Accept header is answered, and under which key; nil when it
        /// takes no format the variant can be written in (406).
        package func target(accept: String?) -> KeyedVariant? {
            guard variesByAccept, let accept else { return plain }
            // The cheap tests first: most requests of a hot thumbnail come from one kind of browser,
            // and a header without parameters that has a wildcard takes JPEG and PNG alike.
            if accept.contains("avif"), Variant.accepts("image/avif", accept) { return negotiated[.avif] }
            if accept.contains("webp"), Variant.accepts("image/webp", accept) { return negotiated[.webp] }
            if !accept.contains(";"), accept.contains("*/*") || accept.contains("image/*") { return plain }
            guard let chosen = query.variant.negotiated(accept: accept) else { return nil }
            return negotiated[chosen.format] ?? plain
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
        let parsed = Parsed(query: query, url: url, signed: signed)
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
