import Foundation

/// What a thumbnail's making learned about the whole photo, kept with the thumbnail so that a
/// page's grid can be laid out and painted before any thumbnail loads (`GET /v1/placeholder`).
public struct PhotoSummary: Sendable, Hashable, Codable {
    /// The photo's size as displayed (after its EXIF orientation).
    public var width: Int
    public var height: Int
    /// ThumbHash of the whole photo (base64 in JSON): a few dozen bytes that decode to a blurred
    /// preview with its aspect ratio and average colour. Nil if it could not be made.
    public var thumbHash: Data?
    /// How its colours were handled (the `X-Thumbd-Color` header's value), nil when it was sRGB.
    public var color: String?

    public init(width: Int, height: Int, thumbHash: Data?, color: String?) {
        (self.width, self.height, self.thumbHash, self.color) = (width, height, thumbHash, color)
    }
}
