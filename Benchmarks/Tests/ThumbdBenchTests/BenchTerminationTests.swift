#if canImport(Glibc)
import Glibc
#endif
import ChildProcess
import Foundation
import Testing
import TestSupport
@testable import ThumbdBench

/// `thumbd-bench` stopped by SIGTERM on its own (not through a terminal's process group, as a
/// supervisor or `kill` stops it) must not leave its origin and daemon running, nor its scratch.
struct BenchTerminationTests {
    /// When the bench is stopped: as soon as its origin and daemon run, or once the daemon has
    /// written thumbnails into the scratch (the bench then sees its daemon end and begins its own
    /// clean-up while the stop removes the same folders).
    enum Moment: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case childrenStarted = "as its children start"
        case daemonCached = "once the daemon has cached thumbnails"
        var testDescription: String { rawValue }
    }

    @Test(arguments: Moment.allCases)
    func sigtermStopsTheBenchsChildrenAndRemovesItsScratch(at moment: Moment) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-term-\(UUID().uuidString)")
        let corpus = folder.appendingPathComponent("photos"), scratch = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["webp/lossy_rgb_48x32.webp", "png/gradient-rgba8.png"] {
            let from = TestPaths.testImages.appendingPathComponent(name)
            try FileManager.default.copyItem(at: from, to: corpus.appendingPathComponent(from.lastPathComponent))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = scratch.path
        let bench = try BackgroundProcess(name: "thumbd-bench soak", program: BenchCLI.executable,
                                          arguments: ["soak", "--minutes", "5", "--corpus", corpus.path, "--size", "32"],
                                          environment: environment, stdoutPath: folder.appendingPathComponent("bench.log").path)
        defer { bench.stop(SIGKILL, grace: 1) }

        // The origin and the daemon.
        var children: [pid_t] = []
        let deadline = Date().addingTimeInterval(60)
        while children.count < 2 && Date() < deadline && bench.isRunning {
            usleep(100_000)
            children = BenchProc.children(of: bench.pid)
        }
        try #require(children.count >= 2, "the bench started \(children) before \(bench.stdoutText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).contains { $0.hasPrefix("thumbd-bench-") })
        if moment == .daemonCached {
            while Self.cachedFiles(under: scratch) == 0 && Date() < deadline && bench.isRunning { usleep(100_000) }
            try #require(Self.cachedFiles(under: scratch) > 0, "the daemon cached nothing: \(bench.stdoutText)")
        }

        kill(bench.pid, SIGTERM)
        let status = bench.wait(timeout: 30)
        #expect(status == 128 + SIGTERM, "exit status \(String(describing: status)): \(bench.stderrTail())")
        let alive = Survivors.killed(children)
        #expect(alive.isEmpty, "still running after the bench: \(alive)")
        let left = Self.files(under: scratch)
        #expect(left.isEmpty, "scratch left behind: \(left.prefix(8))")
    }

    /// Every path under `folder`, relative to it.
    static func files(under folder: URL) -> [String] {
        FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    }

    /// Files in the daemon's cache folder inside the bench's scratch.
    static func cachedFiles(under scratch: URL) -> Int {
        files(under: scratch).filter { $0.contains("/cache/objects/") }.count
    }
}
