import Foundation
import ImageCore
import Thumbnailer

/// The one rule for `format=auto`: the thumbnail's own alpha decides between JPEG and PNG (or
/// WebP for a transparent WebP source), and a client that accepts AVIF or WebP gets that instead.
extension Variant {
    /// Whether the thumbnail made of `source` has transparent pixels: a padded one only with
    /// transparent bands (a colour, `auto` and `blur` are opaque), the others when the source has alpha.
    public func hasAlpha(source: ImageInfo) -> Bool {
        fit == .pad ? background == .transparent : source.hasAlpha
    }

    /// How to write this variant's thumbnail of `source`.
    public func encoding(for source: ImageInfo, avifSpeed: Int = EncodeSettings.defaultAVIFSpeed) -> EncodeSettings {
        switch format {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        case .avif: .avif(quality: quality, speed: avifSpeed)
        case .jxl: .jxl(quality: quality)
        case .auto:
            // Under a byte cap, a transparent thumbnail is lossy WebP: PNG has no quality to lower.
            !hasAlpha(source: source) ? .jpeg(quality: quality)
                : source.format == .webp || maxBytes != nil ? .webp(quality: quality) : .png
        }
    }

    /// `format=auto` made AVIF for a client whose Accept takes it, else WebP for one that takes
    /// that; the others, and explicit formats, as they are (the response then varies by Accept).
    public func negotiated(accept: String?) -> Variant {
        guard format == .auto, let accept else { return self }
        var chosen = self
        if Self.accepts("image/avif", accept) { chosen.format = .avif } else if Self.accepts("image/webp", accept) { chosen.format = .webp }
        return chosen
    }

    /// Whether `accept` lists `type` without refusing it: a quality of 0 (`q=0`, `Q = 0.000`), as
    /// RFC 9110 writes it and as the fleet's nginx map reads it, so both put an answer in one class.
    public static func accepts(_ type: String, _ accept: String) -> Bool {
        for item in accept.split(separator: ",") {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first?.lowercased() == type else { continue }
            let refused = fields.dropFirst().contains { parameter in
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return pair.count == 2 && pair[0].lowercased() == "q" && Double(pair[1]) == 0
            }
            return !refused
        }
        return false
    }

    /// The file format the variant names; nil for `auto`, which the source decides.
    public var imageFormat: ImageFormat? {
        switch format {
        case .auto: nil
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        case .jxl: .jxl
        }
    }
}
