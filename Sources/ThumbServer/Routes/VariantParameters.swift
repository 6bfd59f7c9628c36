import ThumbPipeline
import Thumbnailer

/// A request's variant parameters as given, before defaults and checks: from a `/v1/thumbnail`
/// query, a prefetch job's JSON body, or a preset in the configuration. `spec(settings:)` is the
/// one place they are validated, so all read them alike.
public struct VariantParameters: Sendable {
    public var size: Int?
    public var fit: String?
    public var gravity: String?
    public var focus: String?
    public var trim: Bool?
    public var format: String?
    public var quality: Int?
    /// A configured preset's name: the whole variant, so none of the others may be given with it.
    public var preset: String?

    /// The names, in the order the messages list them.
    static let names = ["preset", "size", "fit", "gravity", "focus", "trim", "format", "q"]

    public init(size: Int? = nil, fit: String? = nil, gravity: String? = nil, focus: String? = nil, trim: Bool? = nil,
                format: String? = nil, quality: Int? = nil, preset: String? = nil) {
        (self.size, self.fit, self.gravity, self.focus, self.trim) = (size, fit, gravity, focus, trim)
        (self.format, self.quality, self.preset) = (format, quality, preset)
    }

    init(_ query: QueryParameters) throws {
        preset = query["preset"]
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
        preset = try text("preset")
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

    /// The variant: a preset's, or the parameters checked against the settings' limits and
    /// defaulted from them. Throws a `Problem`: `unknown_preset`, `preset_required` (403, under
    /// `server.only_presets`), or `invalid_parameter`.
    public func spec(settings: ServerSettings) throws -> ThumbnailSpec {
        if let preset { return try Self.preset(preset, alone: self, settings: settings) }
        guard !settings.onlyPresets else {
            throw Problem(.forbidden, code: "preset_required",
                          detail: "this daemon makes only its presets: ask for preset=NAME (\(Self.list(settings.presets)))")
        }
        return try checked(settings: settings)
    }

    /// `name`'s variant, when nothing else was asked: a preset is the whole variant, and a size or
    /// format beside it would be quietly ignored or quietly make another one.
    private static func preset(_ name: String, alone parameters: VariantParameters, settings: ServerSettings) throws -> ThumbnailSpec {
        var others = parameters
        others.preset = nil
        let given = [others.size.map { _ in "size" }, others.fit.map { _ in "fit" }, others.gravity.map { _ in "gravity" },
                     others.focus.map { _ in "focus" }, others.trim.map { _ in "trim" }, others.format.map { _ in "format" },
                     others.quality.map { _ in "q" }].compactMap { $0 }
        guard given.isEmpty else {
            throw Problem.badParameter("preset names the whole variant: give preset or \(given.joined(separator: ", ")), not both")
        }
        guard var spec = settings.presets[name] else {
            throw Problem(.badRequest, code: "unknown_preset", detail: "no preset \"\(name)\" (\(list(settings.presets)))")
        }
        spec.preset = name
        return spec
    }

    static func list(_ presets: [String: ThumbnailSpec]) -> String {
        presets.isEmpty ? "none is configured" : "the presets are " + presets.keys.sorted().joined(separator: ", ")
    }

    /// The explicit parameters, checked and defaulted (a preset's, when the configuration is read).
    public func checked(settings: ServerSettings) throws -> ThumbnailSpec {
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
