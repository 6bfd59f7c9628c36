/// What an image file carries beside its pixels. A phone photo typically holds EXIF (camera, time,
/// GPS position), XMP and an ICC profile; some add a second image after the end marker.
public struct EmbeddedMetadata: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let exif = EmbeddedMetadata(rawValue: 1 << 0)
    public static let xmp = EmbeddedMetadata(rawValue: 1 << 1)
    public static let iccProfile = EmbeddedMetadata(rawValue: 1 << 2)
    public static let comment = EmbeddedMetadata(rawValue: 1 << 3)
    /// Application segments or chunks of other kinds (maker notes, MPF, Photoshop IRB, …).
    public static let otherApplicationData = EmbeddedMetadata(rawValue: 1 << 4)
    /// Bytes after the image's end (MPF secondary images, vendor trailers).
    public static let trailingData = EmbeddedMetadata(rawValue: 1 << 5)

    /// Names for messages and manifests, in a fixed order.
    public var names: [String] {
        let all: [(EmbeddedMetadata, String)] = [
            (.exif, "exif"), (.xmp, "xmp"), (.iccProfile, "icc"), (.comment, "comment"),
            (.otherApplicationData, "application-data"), (.trailingData, "trailing-data"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}
