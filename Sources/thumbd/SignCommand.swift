import ArgumentParser
import Foundation
import ThumbServer
import ThumbdConfig

struct SignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Print a signed /v1/thumbnail URL (for a daemon with server.signing_key set).",
        discussion: """
            The key comes from --key, else from the configuration (server.signing_key or THUMBD_SIGNING_KEY).
            Example:
              thumbd sign https://example.com/photo.jpg --size 200 --key "$KEY"
            """
    )

    @Argument(help: "The image URL.")
    var url: String

    @Option(help: ArgumentHelp("A configured preset instead of the variant options.", valueName: "NAME")) var preset: String?
    @Option(help: "Box size in pixels.") var size: Int?
    @Option(help: "cover or contain.") var fit: String?
    @Option(help: "center or smart (default: the daemon's thumbnail.gravity).") var gravity: String?
    @Option(help: ArgumentHelp("A focus point instead of gravity: fractions of the upright photo.", valueName: "X,Y")) var focus: String?
    @Flag(help: "Take off a uniform border first.") var trim = false
    @Option(help: "auto, jpeg, png or webp.") var format: String?
    @Option(name: .customLong("q"), help: "Quality 1...100.") var quality: Int?
    @Option(help: "The signing key (default: the configuration's).") var key: String?
    @Option(help: ArgumentHelp("YAML configuration file.", valueName: "FILE")) var config: String?
    @Option(help: "The daemon's base URL (default: from server.listen).") var base: String?

    func run() async throws {
        let loaded = try await ThumbdConfiguration.load(file: config)
        guard let signingKey = key ?? loaded.daemon.server.signingKey else {
            throw ValidationError("no signing key: pass --key, or set server.signing_key / THUMBD_SIGNING_KEY")
        }
        var parameters = [("url", url)]
        if let preset { parameters.append(("preset", preset)) }
        if let size { parameters.append(("size", String(size))) }
        if let fit { parameters.append(("fit", fit)) }
        if let gravity { parameters.append(("gravity", gravity)) }
        if let focus { parameters.append(("focus", focus)) }
        if trim { parameters.append(("trim", "1")) }
        if let format { parameters.append(("format", format)) }
        if let quality { parameters.append(("q", String(quality))) }
        let server = loaded.daemon.server
        let origin = base ?? "http://\(server.listenDescription)"
        print("\(origin)/v1/thumbnail?\(URLSigner(key: signingKey).signedQuery(parameters))")
    }
}
