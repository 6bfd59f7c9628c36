import ArgumentParser
import ConsoleText
import Foundation
import ThumbCache
import ThumbVariant
import Thumbnailer

struct CachePathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the absolute path of a cached file, for other programs to read.",
        discussion: HelpText.reflowed("""
            Prints one path per matching variant (filter with --size, --fit, --format, --gravity,
            --trim/--no-trim); the file's bytes are exactly the thumbnail. Exit status 1 when nothing
            matching is cached.

              convert "$(thumbd cache path https://shop.example/p/1.jpg --size 200)" …
            """)
    )

    @OptionGroup var options: CacheOptions

    @Argument(help: "The image URL.")
    var url: String

    @Option(help: ArgumentHelp("Only variants of these sizes, N or WxH (repeat for several).", valueName: "N|WxH"))
    var size: [String] = []

    @Option(help: "Only this fit: cover, contain or pad.")
    var fit: String?

    @Option(help: "Only this format: jpeg, png, webp, avif or jxl.")
    var format: String?

    @Option(help: "Only this gravity: center, smart, focus (any focal point) or one point (focus=0.25,0.6).")
    var gravity: GravityFilter?

    @Flag(inversion: .prefixedNo, help: "Only thumbnails made with (--trim) or without (--no-trim) a border taken off.")
    var trim: Bool?

    @Flag(help: "The cached original (the downloaded source) instead of thumbnails.")
    var original = false

    /// A gravity read as the API reads it (`Gravity`, `FocusPoint`), or `focus` for any focal point.
    enum GravityFilter: ExpressibleByArgument {
        case exactly(Gravity)
        case anyFocus

        init?(argument: String) {
            let text = argument.lowercased()
            if text == "focus" { self = .anyFocus; return }
            if text.hasPrefix("focus="), let point = FocusPoint(String(text.dropFirst(6))) { self = .exactly(.focus(point)); return }
            guard let named = Gravity(text) else { return nil }
            self = .exactly(named)
        }

        /// `variantGravity` is the cache variant's text, which `Gravity.description` writes.
        func matches(_ variantGravity: String) -> Bool {
            switch self {
            case .anyFocus: variantGravity.hasPrefix("focus=")
            case .exactly(let gravity): variantGravity == gravity.description
            }
        }
    }

    /// `--size`, `--fit` and `--format` read by the variant parser as the API reads them (so
    /// `--size 0x400` is refused, not a filter that matches nothing), as the cache's own variant
    /// text: one per size asked for.
    func wanted() throws -> [CacheVariant] {
        var defaults = VariantDefaults()
        // Nothing larger can have been made, by any daemon's settings.
        defaults.maxSize = ThumbnailRequest.sizeRange.upperBound
        func parsed(_ size: String?) throws -> CacheVariant {
            var fields = VariantFields()
            fields.append("size", text: size)
            fields.append("fit", text: fit)
            fields.append("format", text: format)
            do { return try VariantParser.parse(fields, defaults: defaults).cacheVariant } catch {
                throw ValidationError(VariantOptions.usage(error))
            }
        }
        return size.isEmpty ? [try parsed(nil)] : try size.map(parsed)
    }

    mutating func run() async throws {
        let wanted = try wanted()
        try await options.loadConfiguration()
        let normalized = try options.keyedURL(url)
        try CacheCommandFailure.run {
            let cache = try options.openForReading()
            defer { cache.close() }
            let matching = try cache.variants(of: normalized).filter { e in
                (original ? e.isOriginal : !e.isOriginal)
                    && wanted.contains { asked in
                        (size.isEmpty || (asked.size, asked.height) == (e.variant.size, e.variant.height))
                            && (fit == nil || asked.fit == e.variant.fit)
                            && (format == nil || asked.format == e.variant.format)
                    }
                    && (gravity.map { $0.matches(e.variant.gravity) } ?? true)
                    && (trim.map { $0 == e.variant.trim } ?? true)
            }
            if options.json {
                try options.printJSON(matching.map { ["path": $0.fileURL.path, "variant": $0.variant.description] })
            } else {
                for entry in matching { print(entry.fileURL.path) }
            }
            if matching.isEmpty {
                if !options.json { FileHandle.standardError.write(Data("no cached \(original ? "original" : "thumbnail") of \(normalized.value) matches\n".utf8)) }
                throw ExitCode.failure
            }
        }
    }
}
