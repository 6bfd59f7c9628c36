#if canImport(Glibc)
import Glibc
#endif
import ChildProcess
import Foundation
import Testing
import TestSupport

/// `Termination` in a real process stopped by SIGTERM while it starts children and removes its
/// folder (the probe): the status, the children, the folder and the order of events.
struct TerminationTests {
    @Test func aStopKillsEveryChildRefusesNewOnesAndRemovesTheFolder() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-termination-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("scratch"), log = base.appendingPathComponent("probe.log")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }

        let probe = try BackgroundProcess(name: "termination probe", program: TestPaths.builtProduct("thumbd-termination-probe"),
                                          arguments: [folder.path], environment: ProcessInfo.processInfo.environment,
                                          stdoutPath: log.path)
        defer { probe.stop(SIGKILL, grace: 1) }
        let status = probe.wait(timeout: 60)
        let lines = probe.stdoutText.split(separator: "\n").map(String.init)
        #expect(status == 128 + SIGTERM, "exit status \(String(describing: status)): \(lines)")

        let started = lines.compactMap { $0.hasPrefix("started ") ? pid_t($0.dropFirst(8)) : nil }
        #expect(started.count >= 2, "\(lines)")
        #expect(lines.contains("stubborn ignores SIGTERM"), "the child that needs SIGKILL was not ready: \(lines)")
        #expect(lines.contains { $0.hasPrefix("refused: ") && $0.hasSuffix("the program is stopping on a signal") },
                "no start was refused during the stop: \(lines)")
        #expect(lines.contains("remove left it to the stop"), "\(lines)")
        let alive = Survivors.killed(started)
        #expect(alive.isEmpty, "children still running after the stop: \(alive)")
        #expect(!FileManager.default.fileExists(atPath: folder.path), "the folder is left")
    }
}
