import Foundation

/// The thumbd the benchmarks run as a child (`thumbd thumbnail`, `thumbd serve`): the one built
/// beside this thumbd-bench (`swift build` puts both in one folder), so the figures are of the
/// build the bench came from, never of another thumbd found on PATH.
enum ThumbdExecutable {
    static let missing = "cannot find thumbd beside thumbd-bench (swift build -c release builds both)"

    /// The path of thumbd beside this program, or nil when there is none.
    static func beside() -> String? {
        guard let bench = runningExecutable() else { return nil }
        let thumbd = URL(fileURLWithPath: bench).deletingLastPathComponent().appendingPathComponent("thumbd").path
        return FileManager.default.isExecutableFile(atPath: thumbd) ? thumbd : nil
    }

    /// `beside()`, for the benchmarks that cannot measure anything without it.
    static func required() throws -> String {
        guard let thumbd = beside() else { throw ValidationErrorMessage(missing) }
        return thumbd
    }

    /// The interpreter of the virtual environment `make crop-deps` makes in the build folder
    /// (`.build/thumbor-venv`, beside `release/` and `debug/`), when there is one.
    static func thumborPython() -> String? {
        guard let bench = runningExecutable() else { return nil }
        let build = URL(fileURLWithPath: bench).deletingLastPathComponent().deletingLastPathComponent()
        // `.build/release` is a link to `.build/x86_64-unknown-linux-gnu/release`: look in both parents.
        for folder in [build, build.deletingLastPathComponent()] {
            let python = folder.appendingPathComponent("thumbor-venv/bin/python3").path
            if FileManager.default.isExecutableFile(atPath: python) { return python }
        }
        return nil
    }

    /// The running program's own path, links resolved.
    private static func runningExecutable() -> String? {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return resolved
        }
        guard let first = CommandLine.arguments.first else { return nil }
        if first.contains("/") {
            return URL(fileURLWithPath: first).standardizedFileURL.resolvingSymlinksInPath().path
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(first)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
