import Foundation

/// What was made of a batch, image by image: written as manifest.json by `thumbd prepare` and
/// returned by `POST /v1/uploads/prepare`.
public struct UploadManifest: Codable, Sendable {
    public struct Rules: Codable, Sendable {
        public var budgetBytes: Int
        public var maxSide: Int
        public var square: Bool
        public var format: UploadSettings.OutputFormat
        public var qualityCeiling: Int
        public var qualityFloor: Int
        /// The extra sizes asked for; absent when none were.
        public var extraSides: [Int]?
    }

    public struct Image: Codable, Sendable {
        public var position: Int
        public var source: String
        public var output: String
        public var format: String
        public var contentType: String
        public var width: Int
        public var height: Int
        public var bytes: Int
        /// nil when the original was handed on.
        public var quality: Int?
        public var action: PreparedImage.Action
        public var sourceWidth: Int
        public var sourceHeight: Int
        public var sourceBytes: Int
        /// The EXIF orientation the original carried (1 is upright).
        public var sourceOrientation: Int
        public var removedMetadata: [String]
        /// `srgb`, or how the original's colours were converted to sRGB (`converted; from="Display P3"`)
        /// or why its profile was ignored: a prepared image is always sRGB, with no profile.
        public var color: String
        /// Every encoding tried, in order; the last that fits is the one kept.
        public var steps: [EncodeStep]
        /// The image itself, base64, when the manifest travels without the files (HTTP JSON answers).
        public var data: String?
        /// The smaller copies asked for (`extra sizes`), largest first; absent when none were.
        public var extras: [Extra]?
    }

    /// A smaller copy of a prepared image: the same picture, its longest side at `side`.
    public struct Extra: Codable, Sendable {
        public var side: Int
        public var output: String
        public var width: Int
        public var height: Int
        public var bytes: Int
        public var quality: Int
        public var steps: [EncodeStep]
        public var data: String?
    }

    public var rules: Rules
    public var images: [Image]
    public var elapsedSeconds: Double?

    public init(settings: UploadSettings, images: [PreparedImage], includingData: Bool = false, elapsedSeconds: Double? = nil) {
        rules = Rules(budgetBytes: settings.budgetBytes, maxSide: settings.maxSide, square: settings.square,
                      format: settings.format, qualityCeiling: settings.qualityCeiling, qualityFloor: settings.qualityFloor,
                      extraSides: settings.extraSides.isEmpty ? nil : settings.extraSides.sorted(by: >))
        self.images = images.map { image in
            Image(position: image.source.position, source: image.source.name, output: image.fileName,
                  format: image.format.rawValue, contentType: image.format.mimeType,
                  width: image.width, height: image.height, bytes: image.bytes.count, quality: image.quality,
                  action: image.action, sourceWidth: image.sourceInfo.width, sourceHeight: image.sourceInfo.height,
                  sourceBytes: image.sourceBytes, sourceOrientation: Int(image.sourceInfo.orientation.rawValue),
                  removedMetadata: image.removedMetadata.names, color: image.color, steps: image.steps,
                  data: includingData ? Data(image.bytes).base64EncodedString() : nil,
                  extras: image.extras.isEmpty ? nil : image.extras.map { extra in
                      Extra(side: extra.side, output: image.fileName(of: extra), width: extra.width, height: extra.height,
                            bytes: extra.bytes.count, quality: extra.quality, steps: extra.steps,
                            data: includingData ? Data(extra.bytes).base64EncodedString() : nil)
                  })
        }
        self.elapsedSeconds = elapsedSeconds
    }

    /// Pretty, sorted keys: stable for people and diffs.
    public func json() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self))
    }
}
