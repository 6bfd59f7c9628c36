import ArgumentParser
import Foundation

extension AsyncParsableCommand {
    /// Parses the command line and runs the chosen command, as ArgumentParser's own `main` does,
    /// except that usage errors exit 2 (not ArgumentParser's 64): scripts tell them from a failed
    /// image (1). thumbd and thumbd-bench both start here, so their exit statuses agree.
    public static func runExitingTwoOnUsageErrors() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
