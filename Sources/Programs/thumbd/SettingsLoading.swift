import ArgumentParser
import Foundation
import ThumbdConfig

/// The settings every command reads, as `thumbd serve` reads them. A refusal (an unknown key or
/// variable, a bad value) stops the command before it opens anything: each problem on its own
/// `error:` line, exit status 2, as for any usage error.
func loadSettings(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> ThumbdConfiguration {
    do {
        return try await ThumbdConfiguration.load(file: file, environment: environment)
    } catch let error as ConfigError {
        reportRefusal(error)
        throw ExitCode(2)
    }
}

func reportRefusal(_ error: ConfigError) {
    FileHandle.standardError.write(Data(error.message.split(separator: "\n").map { "error: \($0)\n" }.joined().utf8))
}
