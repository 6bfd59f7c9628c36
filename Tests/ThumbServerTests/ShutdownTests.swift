import AsyncHTTPClient
import ChildProcess
import Foundation
import TestOrigin
import Testing

@Suite("SIGTERM drains and closes the cache")
struct ShutdownTests {
    /// The built `thumbd`, beside the test binary.
    static let executable: String = {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("thumbd").path
    }()

    @Test("SIGTERM during in-flight requests: they complete, the exit status is 0, the index is consistent")
    func sigtermDrains() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/slow1.jpg": .image(Images.jpeg, latency: .milliseconds(1500)),
            "/slow2.jpg": .image(Images.otherJPEG, latency: .milliseconds(1500)),
        ])
        let directory = try TestDaemon.temporaryDirectory()
        let log = directory.appendingPathComponent("daemon.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["serve"]
        var environment = ProcessInfo.processInfo.environment
        environment["THUMBD_LISTEN"] = "127.0.0.1:0"
        environment["THUMBD_CACHE_DIR"] = directory.appendingPathComponent("cache").path
        environment["THUMBD_ALLOW_NETWORKS"] = "127.0.0.1/32"
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()

        let port = try await Self.listeningPort(log: log)
        func path(_ name: String) -> String {
            "/v1/thumbnail?size=64&url=" + origin.url(name).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        let requests = ["/slow1.jpg", "/slow2.jpg"].map { name in
            Task { () throws -> (Int, Int) in
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path(name))"),
                                                                   timeout: .seconds(20))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), body.readableBytes)
            }
        }
        #expect(await origin.waitForTotalRequests(count: 2, timeout: .seconds(10)))
        kill(process.processIdentifier, SIGTERM)
        for request in requests {
            let (status, bytes) = try await request.value
            #expect(status == 200)
            #expect(bytes > 100)
        }
        let exited = await Self.waitForExit(process, timeout: .seconds(15))
        #expect(exited)
        #expect(process.terminationStatus == 0)
        #expect(process.terminationReason == .exit)
        let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(logText.contains("cache closed"), "log: \(logText)")

        let verify = try ChildProcess.run(Self.executable, ["cache", "verify", "--cache-dir", directory.appendingPathComponent("cache").path],
                                          timeoutSeconds: 60)
        #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderrText)")
        let listing = try ChildProcess.run(Self.executable, ["cache", "ls", "--json", "--cache-dir", directory.appendingPathComponent("cache").path],
                                           timeoutSeconds: 60)
        let entries = try JSONSerialization.jsonObject(with: Data(listing.stdout)) as? [[String: Any]]
        #expect(entries?.filter { ($0["kind"] as? String) == "thumbnail" }.count == 2)
        try await origin.shutdown()
    }

    static func listeningPort(log: URL) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"address=http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let match = text[range]
                if let port = Int(match.split(separator: ":").last ?? "") { return port }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("the daemon did not report a listening address: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    static func waitForExit(_ process: Process, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if process.isRunning {
            process.terminate()
            return false
        }
        return true
    }
}
