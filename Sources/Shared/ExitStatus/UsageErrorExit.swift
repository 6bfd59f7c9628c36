import ArgumentParser
import Foundation

extension AsyncParsableCommand {
    /// Parses the command line and runs the chosen command, as ArgumentParser's own `main` does,
    /// except that usage errors exit 2 (not ArgumentParser's 64): scripts tell them from a failed
    /// image (1). thumbd and thumbd-bench both start here, so their exit statuses agree.
    public static func runExitingTwoOnUsageErrors() async {
        let parsed: ParsableCommand
        do { parsed = try parseAsRoot() } catch { exitReporting(error) }
        do {
            var command = parsed
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as ValidationError {
            // Found by run() (a variant read after its preset's configuration, say), where
            // ArgumentParser no longer knows the subcommand and would show the root's usage.
            FileHandle.standardError.write(Data((usageErrorMessage(error.message, of: type(of: parsed)) + "\n").utf8))
            Foundation.exit(2)
        } catch {
            exitReporting(error)
        }
    }

    /// ArgumentParser's report of a usage error, for a subcommand: the message, the subcommand's
    /// usage line, and where its help is.
    static func usageErrorMessage(_ message: String, of subcommand: ParsableCommand.Type) -> String {
        let path = ([configuration.commandName ?? ""] + (commandPath(to: subcommand) ?? [])).joined(separator: " ")
        return """
            Error: \(message)
            Usage: \(usageString(for: subcommand))
              See '\(path) --help' for more information.
            """
    }

    /// The subcommand names from this command down to `subcommand`; nil when it is not below.
    static func commandPath(to subcommand: ParsableCommand.Type, from command: ParsableCommand.Type = Self.self) -> [String]? {
        if command == subcommand { return [] }
        for child in command.configuration.subcommands {
            if let rest = commandPath(to: subcommand, from: child) {
                return [child.configuration.commandName ?? "\(child)"] + rest
            }
        }
        return nil
    }

    private static func exitReporting(_ error: Error) -> Never {
        if exitCode(for: error) == .validationFailure {
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
        exit(withError: error)
    }
}
