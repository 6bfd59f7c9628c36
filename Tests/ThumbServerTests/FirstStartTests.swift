import Foundation
import Testing
import TestSupport

/// What `thumbd serve` says of its cache directory at start: created the first time, nothing on a
/// clean restart, a repair (in the background, beside the answers) after a kill.
@Suite("First start of a cache directory")
struct FirstStartTests {
    @Test("a new directory logs created, never a crash; a clean restart logs neither; after SIGKILL the repair is logged")
    func createdThenCleanThenRepaired() async throws {
        let directory = try TestDaemon.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let firstLog = try await Self.run(in: directory, stop: SIGTERM)
        #expect(firstLog.contains("cache directory created"), "\(firstLog)")
        #expect(!firstLog.contains("repaired") && !firstLog.contains("crash"), "\(firstLog)")

        let secondLog = try await Self.run(in: directory, stop: SIGKILL)
        #expect(!secondLog.contains("created") && !secondLog.contains("repaired"), "\(secondLog)")

        let thirdLog = try await Self.run(in: directory, stop: SIGTERM)
        #expect(thirdLog.contains("serving now, repairing in the background") && thirdLog.contains("previous_end=process_crash"), "\(thirdLog)")
        #expect(!thirdLog.contains("cache directory created"), "\(thirdLog)")
    }

    /// Starts `thumbd serve` with its cache in `directory`, waits until it listens, stops it with
    /// `signal`, and returns what it logged.
    static func run(in directory: URL, stop signal: Int32) async throws -> String {
        let (process, log) = try ServeProcess.start(in: directory)
        _ = try await ServeProcess.listeningPort(log: log)
        kill(process.pid, signal)
        #expect(await ServeProcess.waitForExit(process, timeout: .seconds(20)))
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: log)
        return text
    }
}
