import Foundation

/// Query parameters the cache key leaves out: the signature parts of presigned and signed URLs
/// (S3's `X-Amz-*`, S3's older `Signature`/`Expires`/`AWSAccessKeyId`, GCS's `X-Goog-*` and
/// `GoogleAccessId`), which change with every signing while the object stays the same. Names match
/// without regard to case; a pattern ending in `*` matches every name it starts.
public struct UnkeyedQuery: Sendable, Equatable, CustomStringConvertible {
    public let patterns: [String]

    public static let defaults = UnkeyedQuery(patterns: ["X-Amz-*", "Signature", "Expires", "AWSAccessKeyId", "X-Goog-*", "GoogleAccessId"])
    public static let none = UnkeyedQuery(patterns: [])

    public init(patterns: [String]) {
        self.patterns = patterns
        lowered = patterns.map { $0.lowercased() }
    }

    private let lowered: [String]

    /// A comma-separated list, as the setting is written. Each entry is a parameter name (letters,
    /// digits, `-`, `_`, `.`), with at most a trailing `*`.
    public init(list text: String) throws(CacheKeyError) {
        let entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for entry in entries {
            let name = entry.hasSuffix("*") ? entry.dropLast() : Substring(entry)
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
                throw CacheKeyError(message: "\"\(entry)\" is not a query parameter name (letters, digits, - _ ., with at most a trailing *)")
            }
        }
        self.init(patterns: entries)
    }

    public var description: String { patterns.joined(separator: ", ") }

    func matches(_ name: Substring) -> Bool {
        let name = name.lowercased()
        return lowered.contains { $0.hasSuffix("*") ? name.hasPrefix($0.dropLast()) : name == $0 }
    }

    /// `url` without the parameters this list names, marked as signed (`NormalizedURL.signedMarker`),
    /// or nil when it has none of them.
    public func keyed(_ url: NormalizedURL) -> NormalizedURL? {
        guard !lowered.isEmpty, let question = url.value.firstIndex(of: "?") else { return nil }
        let items = url.value[url.value.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
        let kept = items.filter { item in
            let name = item.prefix { $0 != "=" }
            return !matches(Substring(String(name).removingPercentEncoding ?? String(name)))
        }
        guard kept.count < items.count else { return nil }
        let base = url.value[..<question]
        let stripped = kept.isEmpty ? String(base) : base + "?" + kept.joined(separator: "&")
        return NormalizedURL(normalized: stripped + NormalizedURL.signedMarker, scheme: url.scheme, host: url.host)
    }
}
