import ArgumentParser
import Foundation
import ThumbCache

struct CachePathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the absolute path of a cached file, for other programs to read.",
        discussion: """
            Prints one path per matching variant (filter with --size, --fit, --format); the file's bytes
            are exactly the thumbnail. Exit status 1 when nothing matching is cached.

              convert "$(thumbd cache path https://shop.example/p/1.jpg --size 200)" …
            """
    )

    @OptionGroup var options: CacheOptions

    @Argument(help: "The image URL.")
    var url: String

    @Option(help: "Only variants of these sizes (repeat for several).")
    var size: [Int] = []

    @Option(help: "Only this fit: cover or contain.")
    var fit: String?

    @Option(help: "Only this format: jpeg, png or webp.")
    var format: String?

    @Flag(help: "The cached original (the downloaded source) instead of thumbnails.")
    var original = false

    mutating func run() async throws {
        try await options.loadConfiguration()
        let normalized = try normalizedURL(url)
        try CacheCommandFailure.run {
            let cache = try options.openForReading()
            defer { cache.close() }
            let matching = try cache.variants(of: normalized).filter { e in
                (original ? e.isOriginal : !e.isOriginal)
                    && (size.isEmpty || size.contains(e.variant.size))
                    && (fit.map { $0.lowercased() == e.variant.fit } ?? true)
                    && (format.map { $0.lowercased() == e.variant.format || ($0.lowercased() == "jpg" && e.variant.format == "jpeg") } ?? true)
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
