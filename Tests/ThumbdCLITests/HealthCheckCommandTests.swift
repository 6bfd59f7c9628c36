import ChildProcess
import DaemonTestSupport
import Foundation
import Testing
import TestSupport
import ThumbServer

/// `thumbd healthcheck` (the container image's HEALTHCHECK) against a real `thumbd serve`: ready,
/// draining, gone, and the address found through the same settings the daemon read.
struct HealthCheckCommandTests {
    @Test func readyDaemonExitsZeroAndDrainingOrGoneExitsOne() async throws {
        let directory = try TestDaemon.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, log) = try ServeProcess.start(in: directory, ["THUMBD_SERVER_DRAIN_GRACE": "6"])
        let port = try await ServeProcess.listeningPort(log: log)

        let ready = try CLI.run(["healthcheck", "--url", "http://127.0.0.1:\(port)"], timeout: 30)
        #expect(ready.status == 0, "\(ready.stderrText)")
        #expect(ready.stdoutText.hasPrefix("ready: http://127.0.0.1:\(port)/readyz: 200"), "\(ready.stdoutText)")

        // The address comes from the settings as `serve` reads them: here a file naming the port.
        let settings = directory.appendingPathComponent("thumbd.yaml")
        try "server:\n  listen: 127.0.0.1:\(port)\n".write(to: settings, atomically: true, encoding: .utf8)
        let fromSettings = try CLI.run(["healthcheck", "--config", settings.path], timeout: 30)
        #expect(fromSettings.status == 0, "\(fromSettings.stderrText)")

        kill(process.pid, SIGTERM)
        let draining = try CLI.run(["healthcheck", "--url", "http://127.0.0.1:\(port)"], timeout: 30)
        #expect(draining.status == 1, "\(draining.stdoutText)")
        #expect(draining.stderrText.contains("not ready: http://127.0.0.1:\(port)/readyz: 503"), "\(draining.stderrText)")

        #expect(await ServeProcess.waitForExit(process, timeout: .seconds(30)))
        let gone = try CLI.run(["healthcheck", "--url", "http://127.0.0.1:\(port)", "--timeout", "2"], timeout: 30)
        #expect(gone.status == 1)
        #expect(gone.stderrText.hasPrefix("not ready: http://127.0.0.1:\(port)/readyz: "), "\(gone.stderrText)")
    }

    @Test func aBadTimeoutOrBadSettingsAreUsageErrors() throws {
        let zero = try CLI.run(["healthcheck", "--timeout", "0"], timeout: 30)
        #expect(zero.status == 2)
        #expect(zero.stderrText.contains("--timeout"), "\(zero.stderrText)")
        for bad in ["127.0.0.1:8080", "ftp://127.0.0.1", "http://", "http://h/?x=1"] {
            let refused = try CLI.run(["healthcheck", "--url", bad], timeout: 30)
            #expect(refused.status == 2 && refused.stderrText.contains("--url must be"), "\(bad): \(refused.stderrText)")
        }

        let directory = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let settings = directory.appendingPathComponent("thumbd.yaml")
        try "server:\n  listen: nowhere\n".write(to: settings, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["healthcheck", "--config", settings.path], timeout: 30)
        #expect(bad.status == 2)
        #expect(bad.stderrText.contains("server.listen"), "\(bad.stderrText)")
    }

    /// A daemon listening on every interface, as in the container image, is asked through the loopback.
    @Test func aWildcardListenAddressIsAskedThroughTheLoopback() {
        var settings = ServerSettings()
        settings.port = 8080
        settings.host = "0.0.0.0"
        #expect(settings.localBaseURL == "http://127.0.0.1:8080")
        settings.host = "::"
        #expect(settings.localBaseURL == "http://[::1]:8080")
        settings.host = "10.1.2.3"
        #expect(settings.localBaseURL == "http://10.1.2.3:8080")
        settings.host = "::1"
        #expect(settings.localBaseURL == "http://[::1]:8080")
    }
}
