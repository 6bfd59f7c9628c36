import ChildProcess
import Foundation
import TestSupport

/// Runs the built `thumbd` (it sits next to the test bundle in the build products folder).
enum CLI {
    static let executable = TestPaths.builtProduct("thumbd")

    static func run(_ arguments: [String], timeout: Double = 120) throws -> ChildProcessResult {
        try ChildProcess.run(executable, arguments, timeoutSeconds: timeout)
    }

    /// Runs thumbd with a hard address-space limit (util-linux `prlimit`), so "memory stays small"
    /// is enforced by the kernel: an allocation past it fails and the process dies. A child's
    /// ru_maxrss cannot show this, because Linux carries the parent's peak RSS into it across exec.
    /// Under AddressSanitizer (`THUMBD_SANITIZER` set, see `make asan-broken`) the shadow memory needs
    /// terabytes of address space, so the bound comes from ASan's own options instead
    /// (max_allocation_size_mb, hard_rss_limit_mb).
    static func run(_ arguments: [String], addressSpaceMiB: Int, timeout: Double = 120) throws -> ChildProcessResult {
        let sanitized = ProcessInfo.processInfo.environment["THUMBD_SANITIZER"] != nil
        guard ChildProcess.isInstalled("prlimit"), !sanitized else { return try run(arguments, timeout: timeout) }
        return try ChildProcess.run("prlimit", ["--as=\(addressSpaceMiB << 20)", executable] + arguments, timeoutSeconds: timeout)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `error: FILE: CODE: reason` lines, keyed by file.
    static func errorCodes(_ stderr: String) -> [String: String] {
        var codes: [String: String] = [:]
        for line in stderr.split(separator: "\n") where line.hasPrefix("error: ") {
            let parts = line.dropFirst(7).components(separatedBy: ": ")
            if parts.count >= 3 { codes[parts[0]] = parts[1] }
        }
        return codes
    }
}
