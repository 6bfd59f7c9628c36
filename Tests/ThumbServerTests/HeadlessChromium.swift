import ChildProcess
import Foundation
import TestSupport

/// Debian's Chromium, run headless: the rendered DOM after the page's scripts ran, and screenshots.
/// `make test` installs it when missing; without it the browser test is skipped, saying why.
struct HeadlessChromium: Sendable {
    let program: String
    /// Its own profile, so runs never meet each other's or a person's.
    let profile: URL

    static let candidates = ["chromium", "chromium-browser", "google-chrome", "chrome"]

    /// THUMBD_CHROMIUM, or the first candidate on PATH.
    static let program: String? = {
        if let given = ProcessInfo.processInfo.environment["THUMBD_CHROMIUM"], !given.isEmpty { return given }
        return candidates.first(where: ChildProcess.isInstalled)
    }()

    static let missing = "headless Chromium is not installed (apt-get install chromium, or set THUMBD_CHROMIUM): "
        + "the inspector's browser test cannot run"

    init?() {
        guard let program = Self.program else { return nil }
        self.program = program
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-chromium-\(UUID().uuidString)")
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: profile)
    }

    /// Loads `url`, lets the page's scripts and fetches run (virtual time runs ahead while nothing
    /// is pending), and returns the DOM as Chromium serialises it.
    func dumpDOM(_ url: String) async throws -> String {
        let result = try await run(["--dump-dom", url])
        return result.stdoutText
    }

    /// A PNG of the page at `width`×`height` written to `file`.
    func screenshot(_ url: String, to file: URL, width: Int = 1280, height: Int = 1000) async throws {
        try? FileManager.default.removeItem(at: file)
        _ = try await run(["--screenshot=\(file.path)", "--window-size=\(width),\(height)", "--hide-scrollbars", url])
        guard FileManager.default.fileExists(atPath: file.path) else { throw TestFailure("Chromium wrote no screenshot at \(file.path)") }
    }

    private func run(_ arguments: [String]) async throws -> ChildProcessResult {
        let common = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-extensions", "--disable-background-networking", "--user-data-dir=\(profile.path)",
            "--virtual-time-budget=15000", "--run-all-compositor-stages-before-draw",
        ]
        let (program, all) = (self.program, common + arguments)
        // A blocking wait: on its own thread, so the daemon in this process keeps its threads.
        let result: ChildProcessResult = try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try ChildProcess.run(program, all, timeoutSeconds: 120) })
            }.start()
        }
        guard result.status == 0, !result.timedOut else {
            throw TestFailure("\(program) exited with \(result.status)\(result.timedOut ? " (timed out)" : ""): \(result.stderrText.suffix(2000))")
        }
        return result
    }

    /// Where the browser test leaves its screenshot: `.build/test-output/inspector/` in the checkout.
    static func outputFolder() throws -> URL {
        let folder = TestPaths.packageRoot.appendingPathComponent(".build/test-output/inspector", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
