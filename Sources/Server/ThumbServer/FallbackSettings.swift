import ThumbPipeline

/// `server.fallback_image`, `server.fallback_status`, `server.fallback_max_age` and the presets'
/// `fallback_image`.
public struct FallbackSettings: Sendable {
    /// For every request (nil: a failure answers its problem document).
    public var picture: FallbackPicture?
    /// A preset's own picture, by preset name; wins over `picture` for requests naming the preset.
    public var presetPictures: [String: FallbackPicture] = [:]
    /// The status the picture is answered with (200 by default, so every image view shows it;
    /// 404 for crawlers and monitors that should see the photo is missing).
    public var status: Int = 200
    /// Short, so a photo that appears later is seen soon.
    public var maxAgeSeconds: Int = 60

    /// Statuses that may carry a picture: 200 and 203, and the client and server errors.
    public static func isAllowedStatus(_ status: Int) -> Bool { status == 200 || status == 203 || (400...599).contains(status) }

    public init() {}

    public func picture(forPreset preset: String?) -> FallbackPicture? {
        preset.flatMap { presetPictures[$0] } ?? picture
    }
}
