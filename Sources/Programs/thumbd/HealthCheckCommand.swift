import ArgumentParser
import AsyncHTTPClient
import ConsoleText
import Foundation
import NIOCore
import ThumbdConfig

/// `thumbd healthcheck`: the container image's HEALTHCHECK and an exec probe for orchestrators. The
/// image has no curl, and the address must follow the same settings `serve` read, so the daemon's
/// own binary asks.
struct HealthCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Ask a running daemon whether it is ready (GET /readyz); exit 0 when it is.",
        discussion: HelpText.reflowed("""
            The daemon is found where `thumbd serve` with the same settings listens (--config FILE,
            THUMBD_CONFIG, THUMBD_LISTEN, ...); an address on all interfaces (0.0.0.0:8080, as in the
            container image) is asked through the loopback. Prints the answer in one line.

            Exit status: 0 when /readyz answers 200; 1 when it answers anything else (503 while the
            daemon drains after SIGTERM), refuses the connection or does not answer within --timeout;
            2 for a usage error or settings that do not load.

            Examples:
              thumbd healthcheck
              thumbd healthcheck --url http://127.0.0.1:8080
            """)
    )

    @Option(help: ArgumentHelp("YAML configuration file.", valueName: "FILE"))
    var config: String?

    @Option(help: ArgumentHelp("The daemon's base URL (default: from server.listen).", valueName: "URL"))
    var url: String?

    @Option(help: ArgumentHelp("Seconds to wait for the answer.", valueName: "SECONDS"))
    var timeout: Double = 3

    func validate() throws {
        guard timeout > 0, timeout <= 300 else { throw ValidationError("--timeout must be between 0 and 300 seconds") }
        if let url {
            guard let parts = URLComponents(string: url), ["http", "https"].contains(parts.scheme?.lowercased() ?? ""),
                  parts.host?.isEmpty == false, parts.query == nil else {
                throw ValidationError("--url must be the daemon's base URL, like http://127.0.0.1:8080 (got \"\(url.prefix(200))\")")
            }
        }
    }

    func run() async throws {
        let base: String
        if let url {
            base = url.hasSuffix("/") ? String(url.dropLast()) : url
        } else {
            base = try await loadSettings(file: config).daemon.server.localBaseURL
        }
        let readyz = base + "/readyz"
        do {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: readyz),
                                                               timeout: .milliseconds(Int64(timeout * 1000)))
            let body = String(buffer: try await response.body.collect(upTo: 4096))
            let answer = "\(readyz): \(response.status.code) \(body.trimmingCharacters(in: .whitespacesAndNewlines))"
            guard response.status == .ok else {
                FileHandle.standardError.write(Data("not ready: \(answer)\n".utf8))
                throw ExitCode.failure
            }
            print("ready: \(answer)")
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("not ready: \(readyz): \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}
