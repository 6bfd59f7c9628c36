import Foundation
import ImageCore
import Thumbnailer

/// The one rule for `format=auto`, used by every door through `ThumbnailMaker`: JPEG for an opaque
/// thumbnail, PNG for a transparent one; AVIF or WebP only for a client whose Accept names them.
/// A client that says `*/*` (curl, a script, the command line) gets the formats every decoder reads.
extension Variant {
    /// Whether the thumbnail made of `source` has transparent pixels: a padded one only with
    /// transparent bands (a colour, `auto` and `blur` are opaque), the others when the source has alpha.
    public func hasAlpha(source: ImageInfo) -> Bool {
        fit == .pad ? background == .transparent : source.hasAlpha
    }

    /// How to write this variant's thumbnail of `source`.
    public func encoding(for source: ImageInfo, options: EncoderOptions = EncoderOptions()) -> EncodeSettings {
        switch format {
        case .jpeg: .jpeg(quality: quality, progressive: options.progressiveJPEG)
        case .png: .png
        case .webp: options.losslessWebP ? .webpLossless : .webp(quality: quality)
        case .avif: .avif(quality: quality, speed: options.avifSpeed)
        case .jxl: .jxl(quality: quality)
        case .auto: hasAlpha(source: source) ? .png : .jpeg(quality: quality, progressive: options.progressiveJPEG)
        }
    }

    /// The variant a client with this Accept header is answered: explicit formats as they are (the
    /// query named its type); `auto` becomes AVIF for a client that names AVIF, else WebP for one that
    /// names WebP, stays `auto` for one that takes both JPEG and PNG (no header counts as `*/*`), and
    /// becomes the one of them it takes otherwise. nil: it takes none of them (406).
    public func negotiated(accept: String?) -> Variant? {
        // A header with no well-formed media range in it (`fu>`) says nothing a server can use:
        // read as absent, as RFC 9110 lets a server do with one it cannot parse.
        guard format == .auto, let accept, Self.hasMediaRange(accept) else { return self }
        var chosen = self
        if Self.accepts("image/avif", accept) {
            chosen.format = .avif
        } else if Self.accepts("image/webp", accept) {
            chosen.format = .webp
        } else {
            switch (Self.takes("image/jpeg", accept), Self.takes("image/png", accept)) {
            case (true, true): break
            case (true, false): chosen.format = .jpeg
            case (false, true): chosen.format = .png
            case (false, false): return nil
            }
        }
        return chosen
    }

    /// Whether `accept` names `type` without refusing it: a quality of 0 (`q=0`, `Q = 0.000`), as
    /// RFC 9110 writes it and as the fleet's nginx map reads it, so both put an answer in one class.
    /// Wildcards do not count: `*/*` is what every client sends, and the newer formats go only to
    /// clients that say they decode them.
    public static func accepts(_ type: String, _ accept: String) -> Bool {
        quality(of: type, in: accept).map { $0 > 0 } ?? false
    }

    /// Whether `accept` takes `type` at all: named, or through `image/*` or `*/*`, and the most
    /// specific of those does not give it quality 0 (RFC 9110, 12.5.1).
    public static func takes(_ type: String, _ accept: String) -> Bool {
        let family = type.split(separator: "/").first.map { "\($0)/*" } ?? "*/*"
        for range in [type, family, "*/*"] {
            if let quality = quality(of: range, in: accept) { return quality > 0 }
        }
        return false
    }

    /// Whether some item of `accept` is a media range: `type/subtype` in token characters.
    static func hasMediaRange(_ accept: String) -> Bool {
        accept.split(separator: ",").contains { item in
            let range = item.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let parts = range.split(separator: "/", omittingEmptySubsequences: false)
            return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(isTokenCharacter) }
        }
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+.^_`|~-".contains(character))
    }

    /// The quality `accept` gives exactly this media range (1 when it has no `q`); nil when absent.
    private static func quality(of range: String, in accept: String) -> Double? {
        for item in accept.split(separator: ",") {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.first?.lowercased() == range else { continue }
            for parameter in fields.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if pair.count == 2, pair[0].lowercased() == "q" { return Double(pair[1]) ?? 1 }
            }
            return 1
        }
        return nil
    }
}

/// How the encoders write, apart from what a variant says: settings of the daemon (`avif_speed`)
/// and options of the command line (progressive JPEG, lossless WebP). Never part of a cache key.
public struct EncoderOptions: Sendable, Equatable {
    public var avifSpeed: Int
    public var progressiveJPEG: Bool
    public var losslessWebP: Bool

    public init(avifSpeed: Int = EncodeSettings.defaultAVIFSpeed, progressiveJPEG: Bool = false, losslessWebP: Bool = false) {
        (self.avifSpeed, self.progressiveJPEG, self.losslessWebP) = (avifSpeed, progressiveJPEG, losslessWebP)
    }
}
