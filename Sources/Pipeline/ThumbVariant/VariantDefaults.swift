import ImageCore
import Thumbnailer

/// What a variant is when a request leaves something out, and how far it may go. One set, read
/// from `thumbnail:` and `server:` in the configuration (whose embedded defaults are these), used
/// by the daemon, the command line and prefetch alike.
public struct VariantDefaults: Sendable {
    /// `size` when none is given: a square of this side.
    public var size = 200
    /// The largest side a variant may have (`server.max_size`); a `dpr` is capped to it too.
    public var maxSize = 2048
    public var quality = EncodeSettings.defaultQuality
    /// Where a cover crop is taken from when a request names no `gravity` (`thumbnail.gravity`).
    public var gravity: Gravity = .smart
    /// Named variants (`presets:` in the configuration), asked for as `preset=NAME`.
    public var presets: [String: Variant] = [:]
    /// Make only the presets: a variant that names none is refused (`presetRequired`), so strangers
    /// cannot fill the cache with sizes of their own even where URLs are not signed.
    public var onlyPresets = false

    public init() {}

    public static let dprRange = 1.0...4.0
    public static let qualityRange = EncodeSettings.qualityRange
    /// The largest `max_bytes`: a cap above any thumbnail the size limit allows says nothing.
    public static let maxBytesRange = 1...1_000_000_000

    /// "the presets are grid, card" for messages.
    public var presetList: String {
        presets.isEmpty ? "none is configured" : "the presets are " + presets.keys.sorted().joined(separator: ", ")
    }
}
