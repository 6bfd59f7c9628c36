import ArgumentParser
import ThumbPipeline
import ThumbServer
import ImageCore

/// `--preset NAME`: the configured preset's variant, as `preset=NAME` gives it on the API. It is
/// the whole variant, so it is refused beside any variant option (`given`, the ones on the
/// command line), as the API refuses `preset=` beside `size=`.
func presetSpec(_ name: String, settings: ServerSettings, given: [String?]) throws -> ThumbnailSpec {
    let options = given.compactMap { $0 }
    guard options.isEmpty else {
        throw ValidationError("--preset names the whole variant: give --preset or \(options.joined(separator: ", ")), not both")
    }
    guard var spec = settings.presets[name] else {
        let known = settings.presets.keys.sorted()
        throw ValidationError("no preset \"\(name)\" in the configuration"
                              + (known.isEmpty ? " (it has none: presets: in the YAML file)" : "; the presets are \(known.joined(separator: ", "))"))
    }
    spec.preset = name
    return spec
}

/// The option's name when it was given: `option("--size", size)`.
func option(_ name: String, _ value: (some Any)?) -> String? { value == nil ? nil : name }

extension ThumbnailSpec.Format {
    /// The file format it names; nil for `auto`, which the source decides.
    var imageFormat: ImageFormat? {
        switch self {
        case .auto: nil
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        }
    }
}
