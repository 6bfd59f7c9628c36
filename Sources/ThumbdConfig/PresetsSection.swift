import Foundation
import ThumbPipeline
import ThumbServer
import Yams

/// `presets:` in the YAML file: named variants, `grid: { size: 240, fit: cover, gravity: smart }`.
/// Read from the file itself (the layered reader cannot list a map's names), so presets have no
/// environment spelling. Each is checked as a request's parameters are, against the settings read
/// before it (`thumbnail.size` and the rest fill what a preset leaves out).
enum PresetsSection {
    static let keys = ["size", "fit", "gravity", "focus", "trim", "format", "quality"]

    static func read(file: String?, settings: ServerSettings) throws -> [String: ThumbnailSpec] {
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [:] }
        let document: Any?
        do { document = try Yams.load(yaml: text) } catch {
            throw ConfigError("cannot read the configuration file \(file): \(error)")
        }
        guard let section = (document as? [String: Any])?["presets"], !(section is NSNull) else { return [:] }
        guard let presets = section as? [String: Any] else {
            throw ConfigError("presets must be a map of names to variants, like presets: { grid: { size: 240, fit: cover } }")
        }
        var specs: [String: ThumbnailSpec] = [:]
        for (name, body) in presets {
            specs[name] = try spec(name: name, body, settings: settings)
        }
        return specs
    }

    /// Names go into queries and messages as they are: lower-case letters, digits, `_` and `-`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy { "abcdefghijklmnopqrstuvwxyz0123456789_-".unicodeScalars.contains($0) }
    }

    static func spec(name: String, _ body: Any, settings: ServerSettings) throws -> ThumbnailSpec {
        guard isValidName(name) else {
            throw ConfigError("preset name \"\(name)\" must be lower-case letters, digits, _ and - (at most 64)")
        }
        guard let fields = body as? [String: Any] else {
            throw ConfigError("presets.\(name) must be a map of \(keys.joined(separator: ", "))")
        }
        if let unknown = fields.keys.sorted().first(where: { !keys.contains($0) }) {
            throw ConfigError("presets.\(name) has an unknown key \"\(unknown)\"; the keys are \(keys.joined(separator: ", "))")
        }
        func int(_ key: String) throws -> Int? {
            guard let value = fields[key] else { return nil }
            guard let number = value as? Int else { throw ConfigError("presets.\(name).\(key) must be a whole number, not \"\(value)\"") }
            return number
        }
        func text(_ key: String) throws -> String? {
            guard let value = fields[key] else { return nil }
            // YAML reads `focus: 0.5,0.3` as a string and `fit: cover` too; a number is not text here.
            guard let string = value as? String else { throw ConfigError("presets.\(name).\(key) must be text, not \"\(value)\"") }
            return string
        }
        var trim: Bool?
        if let value = fields["trim"] {
            guard let flag = value as? Bool else { throw ConfigError("presets.\(name).trim must be true or false, not \"\(value)\"") }
            trim = flag
        }
        let parameters = VariantParameters(size: try int("size"), fit: try text("fit"), gravity: try text("gravity"), focus: try text("focus"),
                                           trim: trim, format: try text("format"), quality: try int("quality"))
        do { return try parameters.checked(settings: settings) } catch let problem as Problem {
            throw ConfigError("presets.\(name): \(problem.detail)")
        }
    }
}
