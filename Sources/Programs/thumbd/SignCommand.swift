import ArgumentParser
import ConsoleText
import Foundation
import ThumbServer
import ThumbVariant
import ThumbdConfig

struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print a signed /v1/thumbnail URL (for a daemon with server.signing_key set).",
        discussion: HelpText.reflowed("""
            The key comes from --key, else from the configuration (server.signing_key or THUMBD_SIGNING_KEY).

            Examples:
              thumbd sign https://example.com/photo.jpg --size 200 --key "$KEY"
              thumbd sign https://example.com/photo.jpg --size 300x400 \\
                  --fit pad --background blur --key "$KEY"
            """)
    )

    @Argument(help: "The image URL.")
    var url: String

    @Option(help: ArgumentHelp("A configured preset instead of the variant options.", valueName: "NAME")) var preset: String?
    @OptionGroup(title: "The variant (as the API's query parameters)") var variantOptions: VariantOptions
    @Option(help: ArgumentHelp("auto, jpeg, png, webp, avif or jxl.", valueName: "FORMAT")) var format: String?
    @Option(help: "The signing key (default: the configuration's).") var key: String?
    @Option(help: ArgumentHelp("YAML configuration file.", valueName: "FILE")) var config: String?
    @Option(help: "The daemon's base URL (default: from server.listen).") var base: String?

    func validate() throws {
        try variantOptions.box.requireOneSize("sign")
    }

    func run() async throws {
        let loaded = try await loadSettings(file: config)
        guard let signingKey = key ?? loaded.daemon.server.signingKey else {
            throw ValidationError("no signing key: pass --key, or set server.signing_key / THUMBD_SIGNING_KEY")
        }
        // Checked as the daemon will read it, so no URL is signed that it would refuse.
        _ = try variantOptions.variant(format: format, preset: preset, defaults: loaded.daemon.server.variants)
        var given = variantOptions.fields
        given.append("format", text: format)
        given.append("preset", text: preset)
        // As given (not the canonical spelling): the URL says what its author asked for.
        let parameters = [("url", url)] + given.pairs.map { pair in
            switch pair.value {
            case .text(let text): (pair.name, text)
            case .flag(let flag): (pair.name, flag ? "1" : "0")
            case .number(let number): (pair.name, String(number))
            case .other(let text): (pair.name, text)
            }
        }
        let server = loaded.daemon.server
        let origin = base ?? "http://\(server.listenDescription)"
        print("\(origin)/v1/thumbnail?\(URLSigner(key: signingKey).signedQuery(parameters))")
    }
}
