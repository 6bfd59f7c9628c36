import Foundation

/// An entry's metadata beside its file (`<digest>.meta`, JSON), written before the file is
/// renamed into place. It lets a lost or corrupt index be rebuilt from the files alone, and its
/// size and checksum tell whether it belongs to the file next to it.
///
/// One flat object: `v` (1), `url`, `variant`, then `EntryMetadata`'s fields in snake_case with
/// times as Unix seconds, e.g. `{"content_type":"image/webp","created":1764000000.5,"etag":"\"a1\"",
/// "sha256":"…","size":5120,"url":"https://…","v":1,"validated":1764000000.5,"variant":"200/cover/webp/q80"}`.
/// Fields a newer thumbd adds are optional, so an older sidecar still reads.
struct DiskSidecar: Sendable, Equatable {
    static let version = 1
    var url: String
    var variant: String
    var metadata: EntryMetadata

    init(url: String, variant: String, metadata: EntryMetadata) {
        self.url = url
        self.variant = variant
        self.metadata = metadata
    }

    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        // Encoding plain strings and numbers cannot fail.
        return (try? [UInt8](encoder.encode(self))) ?? []
    }

    static func decode(_ bytes: [UInt8]) -> DiskSidecar? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(DiskSidecar.self, from: Data(bytes))
    }

    /// Whether both describe the same key and the same bytes. Freshness may differ: a 304 updates
    /// the index, and rewrites the sidecar only when the validators change.
    func describesSameFile(as other: DiskSidecar) -> Bool {
        url == other.url && variant == other.variant && metadata.size == other.metadata.size && metadata.checksum == other.metadata.checksum
    }

    /// The key this sidecar describes, if its URL and variant parse and hash to `id`.
    func key(matching id: Hash256) -> CacheKey? {
        guard let url = try? NormalizedURL(stored: url), let variant = CacheVariant(variant) else { return nil }
        let key = CacheKey(url: url, variant: variant)
        return Hash256(hex: key.digest) == id ? key : nil
    }
}

extension DiskSidecar: Codable {
    enum CodingKeys: String, CodingKey {
        case version = "v", url, variant
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard version == Self.version else {
            throw DecodingError.dataCorruptedError(forKey: .version, in: container, debugDescription: "sidecar version \(version)")
        }
        url = try container.decode(String.self, forKey: .url)
        variant = try container.decode(String.self, forKey: .variant)
        metadata = try EntryMetadata(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.version, forKey: .version)
        try container.encode(url, forKey: .url)
        try container.encode(variant, forKey: .variant)
        try metadata.encode(to: encoder)
    }
}
