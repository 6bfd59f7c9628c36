import ChildProcess
import TestSupport

/// Runs the built `thumbd-bench`; it sits in the build products folder beside the test binary and
/// the thumbd it measures.
enum BenchCLI {
    static let executable = TestPaths.builtProduct("thumbd-bench")

    static func run(_ arguments: [String], timeout: Double = 120) throws -> ChildProcessResult {
        try ChildProcess.run(executable, arguments, timeoutSeconds: timeout)
    }
}
