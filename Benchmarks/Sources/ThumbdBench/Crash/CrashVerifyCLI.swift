import ChildProcess
import Foundation

/// `thumbd cache verify` on the directory, as an operator runs it beside the daemon: read-only,
/// every row's file against its checksum and its sidecar. Exit status 0 clean, 1 problems found
/// (or the cache could not be read), 2 a usage error.
enum CrashVerifyCLI {
    struct Outcome: Sendable, Codable {
        var exitStatus: Int32
        var checkedEntries: Int
        /// Each problem as the command prints it, or its error output when it found no report.
        var problems: [String]

        var isClean: Bool { exitStatus == 0 && problems.isEmpty }
    }

    static func run(thumbd: String, directory: String) -> Outcome {
        let result: ChildProcessResult
        do {
            result = try ChildProcess.run(thumbd, ["cache", "verify", "--cache-dir", directory, "--json"], timeoutSeconds: 120)
        } catch {
            return Outcome(exitStatus: -1, checkedEntries: 0, problems: ["\(error)"])
        }
        let report = (try? JSONSerialization.jsonObject(with: Data(result.stdout))) as? [String: Any]
        let problems = (report?["problems"] as? [[String: Any]] ?? []).map { problem in
            "\(problem["kind"] ?? "?"): \(problem["path"] ?? "") \(problem["detail"] ?? "")"
        }
        let failed = result.status != 0 && problems.isEmpty ? [String(result.stderrText.prefix(500))] : []
        return Outcome(exitStatus: result.status, checkedEntries: report?["checkedEntries"] as? Int ?? 0, problems: problems + failed)
    }
}
