import ThumbPipeline
import Thumbnailer

/// A request's variant parameters as given, before defaults and checks: from a `/v1/thumbnail`
/// query or a prefetch job's JSON body. `spec(settings:)` is the one place they are validated,
/// so both read them alike.
struct VariantParameters: Sendable {
    var size: Int?
    var fit: String?
    var gravity: String?
    var focus: String?
    var trim: Bool?
    var format: String?
    var quality: Int?

    /// The names, in the order the messages list them.
    static let names = ["size", "fit", "gravity", "focus", "trim", "format", "q"]

    init(_ query: QueryParameters) throws {
        size = try query.int("size")
        fit = query["fit"]
        gravity = query["gravity"]
        focus = query["focus"]
        trim = try query["trim"].map { try QueryParameters.flag("trim", $0) }
        format = query["format"]
        quality = try query.int("q")
    }

    init(json object: [String: Any]) throws {
        func int(_ name: String) throws -> Int? {
            guard let value = object[name] else { return nil }
            guard let number = value as? Int else { throw Problem.badParameter("\(name) must be a whole number") }
            return number
        }
        func text(_ name: String) throws -> String? {
            guard let value = object[name] else { return nil }
            guard let string = value as? String else { throw Problem.badParameter("\(name) must be a string") }
            return string
        }
        size = try int("size")
        fit = try text("fit")
        gravity = try text("gravity")
        focus = try text("focus")
        if let value = object["trim"] {
            guard let flag = value as? Bool else { throw Problem.badParameter("trim must be true or false") }
            trim = flag
        }
        format = try text("format")
        quality = try int("q")
    }

    /// The variant, checked against the settings' limits and defaulted from them.
    func spec(settings: ServerSettings) throws -> ThumbnailSpec {
        let size = size ?? settings.defaultSize
        guard (1...settings.maxSize).contains(size) else {
            throw Problem.badParameter("size must be between 1 and \(settings.maxSize), not \(size)")
        }
        let fitText = fit ?? Fit.cover.rawValue
        guard let fit = Fit(rawValue: fitText) else {
            throw Problem.badParameter("fit must be cover or contain, not \"\(fitText)\"")
        }
        // Neither: the daemon's default (`thumbnail.gravity`); given, one we know, and not both.
        let gravity: Gravity
        do { gravity = try Gravity.requested(gravity: self.gravity, focus: focus) ?? settings.defaultGravity } catch {
            throw Problem.badParameter(error.message)
        }
        let formatText = format ?? ThumbnailSpec.Format.auto.rawValue
        guard let format = ThumbnailSpec.Format(rawValue: formatText) else {
            throw Problem.badParameter("format must be auto, jpeg, png, webp or avif, not \"\(formatText)\"")
        }
        let quality = quality ?? settings.defaultQuality
        guard (1...100).contains(quality) else {
            throw Problem.badParameter("q must be between 1 and 100, not \(quality)")
        }
        return ThumbnailSpec(size: size, fit: fit, gravity: gravity, trim: trim ?? false, format: format, quality: quality)
    }
}
