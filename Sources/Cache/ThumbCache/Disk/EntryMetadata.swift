import Foundation
import GRDB

/// What the cache knows about one entry's bytes: written with them, refreshed by a 304. It is the
/// one description of an entry; the index row, the owner's in-memory record, the sidecar, the
/// memory tier, `CacheEntry` and `CacheHit` all hold it rather than copies of its fields.
///
/// A field is added here and nowhere else in the cache's code: as a property (its JSON key, in the
/// API's camelCase and the sidecar's snake_case, follows from its name), as a column in `columns`,
/// `init(row:startingAt:)` and `databaseValues`, and as a step of `DiskIndex`'s migrator for
/// caches written before it.
public struct EntryMetadata: Sendable, Hashable, Codable {
    public var size: Int
    /// SHA-256 of the bytes.
    public var checksum: Hash256
    public var contentType: String?
    /// The origin's validators, kept so a stale entry can be revalidated instead of downloaded again.
    public var etag: String?
    public var lastModified: String?
    public var created: Date
    /// When the bytes were stored or last revalidated (a 304); staleness counts from here.
    public var validated: Date
    /// For a thumbnail: the photo's displayed size, placeholder and colour handling. Nil for
    /// originals and for thumbnails stored before thumbd kept it (format 1).
    public var photo: PhotoSummary?

    public init(size: Int, checksum: Hash256, contentType: String?, validators: CacheValidators, created: Date, validated: Date,
                photo: PhotoSummary? = nil) {
        self.size = size
        self.checksum = checksum
        self.contentType = contentType
        self.etag = validators.etag
        self.lastModified = validators.lastModified
        self.created = created
        self.validated = validated
        self.photo = photo
    }

    /// What a store of `bytes` now records.
    public init(storing bytes: [UInt8], contentType: String?, validators: CacheValidators, at now: Date, photo: PhotoSummary? = nil) {
        self.init(size: bytes.count, checksum: .of(bytes), contentType: contentType, validators: validators, created: now, validated: now,
                  photo: photo)
    }

    public var validators: CacheValidators {
        get { CacheValidators(etag: etag, lastModified: lastModified) }
        set { (etag, lastModified) = (newValue.etag, newValue.lastModified) }
    }

    public func isStale(ttl: Duration, now: Date) -> Bool {
        now.timeIntervalSince(validated) > ttl.secondsValue
    }

    enum CodingKeys: String, CodingKey {
        case size, checksum = "sha256", contentType, etag, lastModified, created, validated, photo
    }
}

/// The index's columns for `EntryMetadata`, in one order for reading and writing.
extension EntryMetadata {
    static let columns = "size, sha256, content_type, etag, last_modified, created_at, validated_at, photo_width, photo_height, thumbhash, color"
    static let columnCount = 11

    /// Reads the columns from `start` on (in `columns`' order); nil if the checksum is not 64 hex digits.
    init?(row: Row, startingAt start: Int) {
        let sum: String = row[start + 1]
        guard let checksum = Hash256(hex: sum) else { return nil }
        var photo: PhotoSummary?
        if let width: Int = row[start + 7], let height: Int = row[start + 8] {
            photo = PhotoSummary(width: width, height: height, thumbHash: row[start + 9], color: row[start + 10])
        }
        self.init(size: row[start], checksum: checksum, contentType: row[start + 2],
                  validators: CacheValidators(etag: row[start + 3], lastModified: row[start + 4]),
                  created: Date(timeIntervalSince1970: row[start + 5]), validated: Date(timeIntervalSince1970: row[start + 6]),
                  photo: photo)
    }

    var databaseValues: [(any DatabaseValueConvertible)?] {
        [size, checksum.hex, contentType, etag, lastModified, created.timeIntervalSince1970, validated.timeIntervalSince1970,
         photo?.width, photo?.height, photo?.thumbHash, photo?.color]
    }
}
