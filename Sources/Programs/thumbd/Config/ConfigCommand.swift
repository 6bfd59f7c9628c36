import ArgumentParser
import ConsoleText
import Foundation
import ThumbdConfig

/// `thumbd config …`: the settings, as `nginx -t` checks nginx's.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check the settings before a start or a restart.",
        subcommands: [ConfigCheckCommand.self]
    )
}

struct ConfigCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate the settings as thumbd serve would at start, and print each with its source.",
        discussion: HelpText.reflowed("""
            Reads the embedded defaults, the YAML file (--config FILE or THUMBD_CONFIG) and the THUMBD_*
            variables exactly as `thumbd serve` does, and refuses what it would refuse: an unknown key or
            variable (naming the nearest known one), a value that does not parse or is out of range, a
            preset or an S3 bucket that does not hold, a cache directory or access log this user cannot
            write. Then prints every setting with the value in force and where it came from: default,
            FILE:LINE, or the variable. The admin token, the signing key and the S3 secrets are shown
            only as set or not.

            Exit status: 0 when thumbd serve would start with these settings, 2 when it would not.

            Examples:
              thumbd config check --config /etc/thumbd/thumbd.yaml
              THUMBD_CACHE_DISK_MAX_MIB=4096 thumbd config check
              thumbd config check --json
            """)
    )

    @Option(help: ArgumentHelp("YAML configuration file (default: $THUMBD_CONFIG).", valueName: "FILE"))
    var config: String?

    @Flag(help: "Print JSON for tools: {valid, problems, settings: [{key, value, source}]}.")
    var json = false

    struct Output: Encodable {
        let valid: Bool
        let problems: [String]
        let settings: [SettingsReport.Row]
    }

    func run() async throws {
        let report: SettingsReport
        do {
            report = try await SettingsReport.make(file: config, environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigError {
            if json { try emit(Output(valid: false, problems: error.message.split(separator: "\n").map(String.init), settings: [])) }
            reportRefusal(error)
            throw ExitCode(2)
        }
        if json {
            try emit(Output(valid: report.problems.isEmpty, problems: report.problems, settings: report.rows))
        } else {
            print("Settings of thumbd serve: \(report.configuration.file.map { "the file \($0)" } ?? "no file"), THUMBD_* variables, embedded defaults\n")
            print(TextTable.render(["setting", "value", "source"], report.rows.map { [$0.key, $0.value, $0.source] }, left: [1, 2]))
            print()
        }
        guard report.problems.isEmpty else {
            FileHandle.standardError.write(Data(report.problems.map { "error: \($0)\n" }.joined().utf8))
            throw ExitCode(2)
        }
        if !json { print("ok: thumbd serve would start with these settings") }
    }

    private func emit(_ output: Output) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(output), as: UTF8.self))
    }
}
