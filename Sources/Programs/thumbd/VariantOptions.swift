import Foundation
import ArgumentParser
import ThumbVariant
import Thumbnailer

/// The box and how a photo fills it: `thumbd thumbnail`, `prefetch` and `prepare` alike.
struct BoxOptions: ParsableArguments {
    @Option(help: ArgumentHelp("""
        The box: N for an N x N square, or WxH (300x400). `thumbd thumbnail` and `thumbd prefetch` take it several \
        times and make every size from one decode of each photo.
        """, valueName: "N|WxH"))
    var size: [String] = []

    @Option(help: ArgumentHelp("""
        cover: fill the box exactly, cropping from where --gravity says (the default). contain: the whole photo \
        inside the box. pad: the whole photo, centred on a box-sized canvas of --background.
        """, valueName: "cover|contain|pad"))
    var fit: String?

    @Option(help: ArgumentHelp("""
        With --fit pad: the bands' colour RRGGBB (default ffffff), auto (the photo's own edge colour), blur (a blurred \
        copy of the photo) or transparent (formats with alpha).
        """, valueName: "RRGGBB|auto|blur|transparent"))
    var background: String?

    /// Each option given, under its parameter's name (the first size, for a command that makes one).
    var fields: VariantFields { fields(size: size.first) }

    /// The options with this one size.
    func fields(size: String?) -> VariantFields {
        var fields = VariantFields()
        fields.append("size", text: size)
        fields.append("fit", text: fit)
        fields.append("bg", text: background)
        return fields
    }

    /// For the commands that make one size of a photo.
    func requireOneSize(_ command: String) throws {
        if size.count > 1 {
            throw ValidationError("--size is given \(size.count) times, but \(command) makes one size; `thumbd thumbnail` and `thumbd prefetch` make several from one decode.")
        }
    }
}

/// The variant's options, shared by `thumbd thumbnail` and `thumbd prefetch`: each is the query
/// parameter of the same name (`--background` is `bg`, `--max-bytes` is `max_bytes`), read by the
/// one parser the daemon reads queries with, so a value is accepted or refused alike everywhere.
struct VariantOptions: ParsableArguments {
    @OptionGroup var box: BoxOptions

    @Option(help: ArgumentHelp("Where a cover crop is taken from: smart (what stands out, the default) or center.", valueName: "smart|center"))
    var gravity: String?

    @Option(help: ArgumentHelp("Centre a cover crop on this point of the upright photo, as fractions of its width and height (0.5,0.3).", valueName: "X,Y"))
    var focus: String?

    @Flag(help: "Take off a uniform border (its colour read from the corners) before cropping or fitting.")
    var trim = false

    @Option(help: ArgumentHelp("Device pixel ratio, 1 to 4: the box in pixels is the size times it (capped by the size limit).", valueName: "RATIO"))
    var dpr: String?

    @Option(name: .customLong("max-bytes"), help: ArgumentHelp("""
        The thumbnail is never larger: the quality is lowered (as uploads' budget search does) as far as \(ByteCap.floorQuality) to fit, and the \
        image fails with budget_unreachable if even that does not.
        """, valueName: "BYTES"))
    var maxBytes: String?

    @Option(name: [.customLong("quality"), .customLong("q")], help: ArgumentHelp("Quality for JPEG, lossy WebP and AVIF, 1 to 100 (default 82).", valueName: "Q"))
    var quality: String?

    /// Each option given, under its parameter's name.
    var fields: VariantFields { fields(size: box.size.first) }

    private func fields(size: String?) -> VariantFields {
        var fields = box.fields(size: size)
        fields.append("gravity", text: gravity)
        fields.append("focus", text: focus)
        if trim { fields.append("trim", .flag(true)) }
        fields.append("dpr", text: dpr)
        fields.append("max_bytes", text: maxBytes)
        fields.append("q", text: quality)
        return fields
    }

    /// The option a parameter is given with, for messages.
    static func flag(_ parameter: String) -> String {
        switch parameter {
        case "bg": "--background"
        case "max_bytes": "--max-bytes"
        case "q": "--quality"
        default: "--" + parameter
        }
    }

    /// The variant these options (and `format`, `preset`) name, as a usage error when refused.
    func variant(format: String?, preset: String?, defaults: VariantDefaults) throws -> Variant {
        try variant(size: box.size.first, format: format, preset: preset, defaults: defaults)
    }

    /// One variant for each `--size` given (one, with the preset's or the default size, when none is),
    /// with the size as written, to name its file.
    func variants(format: String?, preset: String?, defaults: VariantDefaults) throws -> [(size: String?, variant: Variant)] {
        let sizes: [String?] = box.size.isEmpty ? [nil] : box.size
        return try sizes.map { size in (size, try variant(size: size, format: format, preset: preset, defaults: defaults)) }
    }

    private func variant(size: String?, format: String?, preset: String?, defaults: VariantDefaults) throws -> Variant {
        var fields = fields(size: size)
        fields.append("format", text: format)
        fields.append("preset", text: preset)
        do { return try VariantParser.parse(fields, defaults: defaults) } catch {
            throw ValidationError(Self.usage(error))
        }
    }

    /// `error`'s message, its parameters named as the command line names them: the one at its
    /// start, and the list in "give preset or size, fit, not both".
    static func usage(_ error: VariantError) -> String {
        var message = error.message
        if let name = VariantParser.names.first(where: { message.hasPrefix($0 + " ") || message.hasPrefix($0 + "=") }) {
            message = flag(name) + " " + message.dropFirst(name.count + 1)
        }
        if let give = message.range(of: "give "), let end = message.range(of: ", not both", range: give.upperBound..<message.endIndex) {
            let list = message[give.upperBound..<end.lowerBound].components(separatedBy: ", ").map { part in
                part.components(separatedBy: " or ").map { VariantParser.isVariantName($0) ? flag($0) : $0 }.joined(separator: " or ")
            }
            message.replaceSubrange(give.upperBound..<end.lowerBound, with: list.joined(separator: ", "))
        }
        return message.replacingOccurrences(of: "preset=NAME", with: "--preset NAME")
    }
}
