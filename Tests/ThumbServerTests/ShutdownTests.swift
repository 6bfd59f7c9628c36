import AsyncHTTPClient
import CSystemdNotify
import ChildProcess
import Foundation
import NIOHTTP1
import TestOrigin
import Testing

@Suite("SIGTERM drains and closes the cache")
struct ShutdownTests {
    @Test("SIGTERM during in-flight requests: they complete, the exit status is 0, the index is consistent")
    func sigtermDrains() async throws {
        let origin = try await TestOrigin.start(routes: [
            "/slow1.jpg": .image(Images.jpeg, latency: .milliseconds(1500)),
            "/slow2.jpg": .image(Images.otherJPEG, latency: .milliseconds(1500)),
        ])
        let directory = try TestDaemon.temporaryDirectory()
        let (process, log) = try ServeProcess.start(in: directory)

        let port = try await ServeProcess.listeningPort(log: log)
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
        kill(process.pid, SIGTERM)
        for request in requests {
            let (status, bytes) = try await request.value
            #expect(status == 200)
            #expect(bytes > 100)
        }
        let exited = await ServeProcess.waitForExit(process, timeout: .seconds(15))
        #expect(exited)
        #expect(process.exitStatus == 0)
        let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(logText.contains("cache closed"), "log: \(logText)")

        let verify = try ChildProcess.run(ServeProcess.executable, ["cache", "verify", "--cache-dir", directory.appendingPathComponent("cache").path],
                                          timeoutSeconds: 60)
        #expect(verify.status == 0, "\(verify.stdoutText)\(verify.stderrText)")
        let listing = try ChildProcess.run(ServeProcess.executable, ["cache", "ls", "--json", "--cache-dir", directory.appendingPathComponent("cache").path],
                                           timeoutSeconds: 60)
        let entries = try JSONSerialization.jsonObject(with: Data(listing.stdout)) as? [[String: Any]]
        #expect(entries?.filter { ($0["kind"] as? String) == "thumbnail" }.count == 2)
        try await origin.shutdown()
    }

    @Test("SIGTERM: /readyz says 503 draining and systemd hears STOPPING while the listener still answers; then it closes and thumbd exits 0")
    func readinessFlipsBeforeTheListenerCloses() async throws {
        let origin = try await TestOrigin.start(routes: ["/hot.jpg": .image(Images.jpeg)])
        let directory = try TestDaemon.temporaryDirectory()
        let socketPath = directory.appendingPathComponent("notify.sock").path
        let notifications = thumbd_sd_notify_listen(socketPath)
        #expect(notifications >= 0)
        defer { close(notifications) }
        func notification() -> String? {
            var buffer = [CChar](repeating: 0, count: 1024)
            let length = thumbd_sd_notify_receive(notifications, &buffer, buffer.count, 10_000)
            return length > 0 ? String(decoding: buffer[0..<Int(length)].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        }
        let (process, log) = try ServeProcess.start(in: directory, ["THUMBD_SERVER_DRAIN_GRACE": "3", "NOTIFY_SOCKET": socketPath])

        let port = try await ServeProcess.listeningPort(log: log)
        #expect(notification()?.hasPrefix("READY=1") == true, "systemd hears READY once the daemon listens")
        func get(_ path: String) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), response.headers, String(buffer: body))
        }
        let thumbnail = "/v1/thumbnail?size=64&url=" + origin.url("/hot.jpg").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        #expect(try await get("/readyz").status == 200)
        #expect(try await get(thumbnail).status == 200)
        #expect(try await get(thumbnail).headers.first(name: "x-cache") == "memory")

        let signalled = ContinuousClock.now
        kill(process.pid, SIGTERM)
        #expect(notification()?.hasPrefix("STOPPING=1") == true)
        let ready = try await get("/readyz")
        #expect(ready.status == 503)
        #expect(ready.body.contains("\"code\":\"draining\""))
        #expect(ready.headers.first(name: "retry-after") != nil)
        // Still answering, but ending each connection so a balancer opens its next one elsewhere.
        let hit = try await get(thumbnail)
        #expect(hit.status == 200)
        #expect(hit.headers.first(name: "connection")?.lowercased() == "close")
        #expect(try await get("/healthz").status == 200, "liveness is unchanged while draining")
        #expect(ContinuousClock.now - signalled < .seconds(3), "all of that within the drain grace")

        // After the grace the listener closes and the process exits 0.
        var refused = false
        while ContinuousClock.now - signalled < .seconds(15), !refused {
            do { _ = try await get("/readyz") } catch { refused = true }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(refused)
        #expect(ContinuousClock.now - signalled >= .seconds(3), "not before the grace")
        #expect(await ServeProcess.waitForExit(process, timeout: .seconds(15)))
        #expect(process.exitStatus == 0)
        try await origin.shutdown()
    }
}
