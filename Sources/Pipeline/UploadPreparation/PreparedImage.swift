import Foundation
import ImageCore

/// An original as the seller gave it: a name (for messages and output names) and its bytes.
public struct SourceImage: Sendable {
    public var name: String
    public var bytes: [UInt8]

    public init(name: String, bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}

/// One encoding tried while fitting the budget.
public struct EncodeStep: Sendable, Equatable, Codable {
    public var width: Int
    public var height: Int
    public var quality: Int
    public var bytes: Int
    public var fits: Bool
}

/// A photo ready for upload, and how it got there.
public struct PreparedImage: Sendable {
    public enum Action: String, Sendable, Codable {
        /// Already met every rule: the original bytes, untouched.
        case passedThrough = "passed-through"
        /// Met every rule but carried metadata, removed without re-encoding (JPEG only).
        case metadataRemoved = "metadata-removed"
        /// Decoded, turned upright, cropped/resized as needed and encoded within the budget.
        case encoded
    }

    public var source: ImageReference
    public var sourceInfo: ImageInfo
    public var sourceBytes: Int
    /// What the original carried beside its pixels (none of it is in `bytes`).
    public var removedMetadata: EmbeddedMetadata
    public var bytes: [UInt8]
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// The quality chosen; nil when the original was handed on.
    public var quality: Int?
    public var action: Action
    public var steps: [EncodeStep]
    /// `srgb`, or the colour conversion's outcome (`X-Thumbd-Color`'s form).
    public var color = "srgb"
    /// The smaller copies `UploadSettings.extraSides` asked for, largest first.
    public var extras: [PreparedExtra] = []

    /// "3-IMG_0412.jpg": the position keeps names unique and in order; the stem keeps them recognisable,
    /// reduced to characters safe in any file system and multipart header.
    public var fileName: String {
        let stem = (source.name as NSString).lastPathComponent
        let base = (stem as NSString).deletingPathExtension
        let safe = String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" }.prefix(64))
        return "\(source.position)-\(safe.isEmpty ? "image" : safe).\(format.fileExtension)"
    }

    /// "3-IMG_0412-320.jpg" for the extra copy at 320.
    public func fileName(of extra: PreparedExtra) -> String {
        let name = fileName as NSString
        return "\(name.deletingPathExtension)-\(extra.side).\(extra.format.fileExtension)"
    }
}

/// A smaller copy of a prepared photo: its pixels resized, encoded within the same budget.
public struct PreparedExtra: Sendable {
    /// The longest side asked for.
    public var side: Int
    public var bytes: [UInt8]
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var quality: Int
    public var steps: [EncodeStep]
}
