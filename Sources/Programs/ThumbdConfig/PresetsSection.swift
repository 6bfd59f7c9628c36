import ThumbVariant
import Foundation
import ThumbPipeline
import ThumbServer
import Yams

/// `presets:` in the YAML file: named variants, `grid: { size: 240, fit: cover, gravity: smart }`.
/// Read from the file itself (the layered reader cannot list a map's names), so presets have no
/// environment spelling. Each is checked as a request's parameters are, against the settings read
/// before it (`thumbnail.size` and the rest fill what a preset leaves out). A preset may also name
/// its own `fallback_image`, which is not part of its variant.
enum PresetsSection {
    struct Presets {
        var variants: [String: Variant] = [:]
        /// `presets.NAME.fallback_image`, by preset name.
        var fallbackImages: [String: String] = [:]
    }

    static let fallbackKey = "fallback_image"

    static func read(file: String?, defaults: VariantDefaults) throws -> Presets {
        guard let file, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return Presets() }
        let document: Any?
        do { document = try Yams.load(yaml: text) } catch {
            throw ConfigError("cannot read the configuration file \(file): \(error)")
        }
        guard let section = (document as? [String: Any])?["presets"], !(section is NSNull) else { return Presets() }
        guard let presets = section as? [String: Any] else {
            throw ConfigError("presets must be a map of names to variants, like presets: { grid: { size: 240, fit: cover } }")
        }
        var result = Presets()
        for (name, body) in presets {
            var fields = body as? [String: Any]
            if let fallback = fields?.removeValue(forKey: fallbackKey) {
                guard let path = fallback as? String, !path.isEmpty else {
                    throw ConfigError("presets.\(name).\(fallbackKey) must be the path of an image file")
                }
                result.fallbackImages[name] = path
            }
            result.variants[name] = try variant(name: name, fields ?? body, defaults: defaults)
        }
        return result
    }

    /// Names go into queries and messages as they are: lower-case letters, digits, `_` and `-`.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy { "abcdefghijklmnopqrstuvwxyz0123456789_-".unicodeScalars.contains($0) }
    }

    /// A preset's map, read by the parser every request is read with (`quality` and `q` both name
    /// the quality). A preset cannot name another preset, and `only_presets` does not apply to it.
    static func variant(name: String, _ body: Any, defaults: VariantDefaults) throws -> Variant {
        guard isValidName(name) else {
            throw ConfigError("preset name \"\(name)\" must be lower-case letters, digits, _ and - (at most 64)")
        }
        let keys = VariantParser.names.filter { $0 != "preset" } + [fallbackKey]
        guard let fields = body as? [String: Any] else {
            throw ConfigError("presets.\(name) must be a map of \(keys.joined(separator: ", "))")
        }
        if fields["preset"] != nil { throw ConfigError("presets.\(name) cannot name another preset") }
        var open = defaults
        open.onlyPresets = false
        do { return try VariantParser.parse(VariantFields(object: fields), defaults: open) } catch {
            if case .unknownParameter(let key) = error.kind {
                throw ConfigError("presets.\(name) has an unknown key \"\(key)\"; the keys are \(keys.joined(separator: ", "))")
            }
            throw ConfigError("presets.\(name)" + (error.parameter.map { ".\($0)" } ?? "") + ": \(error.message)")
        }
    }
}
