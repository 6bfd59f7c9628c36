import ThumbVariant
import ThumbCache
import ThumbPipeline
import ThumbServer

/// A thumbnail query as the fast path parses it (percent-decoding, parameters, the URL normaliser,
/// the cache keys of every negotiated format), without and with URL signing. After a newline: the
/// request's Accept header.
enum QueryFuzz {
    static let unsigned = ServerSettings()
    static let signed: ServerSettings = {
        var settings = ServerSettings()
        settings.signingKey = "fuzz-signing-key"
        // Presets, so `preset=` is parsed too, and the refusal of everything else under only_presets.
        settings.variants.presets = ["grid": Variant(size: 240, gravity: .smart), "edge": Variant(size: 64, fit: .contain, trim: true)]
        settings.variants.onlyPresets = true
        return settings
    }()

    static func run(_ data: [UInt8]) throws(FuzzFinding) {
        let text = String(decoding: data, as: UTF8.self)
        let newline = text.firstIndex(of: "\n")
        let rawQuery = String(text[..<(newline ?? text.endIndex)])
        let accept = newline.map { String(text[text.index(after: $0)...]) }

        for settings in [unsigned, signed] {
            let memo = ThumbnailQueryMemo(settings: settings)
            guard let parsed = try? memo.parse(rawQuery) else { continue }
            guard let target = parsed.target(accept: accept) else {
                // Refused only when the header takes neither JPEG nor PNG, as the variant's own rule says.
                try FuzzSupport.require(parsed.plain.variant.negotiated(accept: accept) == nil, "Accept \(accept ?? "") refused")
                continue
            }
            let key = target.key
            try FuzzSupport.require(key.variant == target.variant.cacheVariant, "key \(key.variant) is not its variant's")
            // Whatever gravity, focus, trim or preset the query asked for, its variant reads back.
            try FuzzSupport.require(CacheVariant(key.variant.description) == key.variant, "variant \(key.variant) does not read back")
            // The key's URL is already normal: normalising it again changes nothing.
            let again = try? NormalizedURL(key.url.value)
            try FuzzSupport.require(again == key.url, "\(key.url.value) normalises to \(again?.value ?? "an error")")
        }
        try normalise(rawQuery)
        if let variant = CacheVariant(rawQuery) {
            try FuzzSupport.require(CacheVariant(variant.description) == variant, "variant \(variant) does not read back")
        }
    }

    /// The normaliser on the raw text too (the cache CLI and admin routes take URLs as given).
    static func normalise(_ text: String) throws(FuzzFinding) {
        guard let url = try? NormalizedURL(text) else { return }
        let again = try? NormalizedURL(url.value)
        try FuzzSupport.require(again == url, "\(url.value) normalises to \(again?.value ?? "an error")")
        _ = CacheKey(url: url, variant: .original)
    }
}
