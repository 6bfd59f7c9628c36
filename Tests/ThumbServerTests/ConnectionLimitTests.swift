import Foundation
import TestOrigin
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What one client may hold: connections, and time at each step of a request. One test at a time:
/// each holds thousands of sockets. Clients connect on threads of their own, never on the
/// concurrency pool the daemon under test runs its requests on.
@Suite("Connection limits and timeouts", .serialized)
struct ConnectionLimitTests {
    private static let halfRequest = "GET /healthz HTTP/1.1\r\nHost: t\r\nUser-Agent: slow"

    /// Raises this process's descriptor limit as far as the hard limit allows; the soft limit now.
    private static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    @Test("3,000 connections holding half a request are closed after the header timeout; a normal client goes on being answered")
    func halfRequestsAreClosed() async throws {
        // Each held connection is two descriptors here: the test's end and the daemon's.
        let count = min(3000, (Self.raiseDescriptorLimit() - 1500) / 2)
        #expect(count >= 1000, "the descriptor limit leaves room for only \(count) connections")
        let daemon = try await TestDaemon.start { $0.server.headerTimeout = .seconds(2) }
        let held = try await onThread {
            try (0..<count).map { _ in
                let connection = try RawConnection(port: daemon.port)
                try connection.send(Self.halfRequest)
                return connection
            }
        }
        let opened = ContinuousClock.now
        // A client that sends whole requests is answered meanwhile, on one connection and on new ones.
        let normal = try RawConnection(port: daemon.port)
        defer { normal.close() }
        for _ in 0..<5 {
            try normal.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(try await normal.response().status == 200)
            #expect(try await daemon.get("/healthz").status == 200)
            try await Task.sleep(for: .milliseconds(200))
        }
        var closed = 0
        for connection in held where await connection.closedByServer(within: .seconds(10)) { closed += 1 }
        #expect(closed == count)
        #expect(ContinuousClock.now - opened >= .milliseconds(1500), "closed before the header timeout")
        for connection in held { connection.close() }
        let metrics = try await daemon.metrics()
        #expect((metrics[#"thumbd_connections_timed_out_total{reason="header_timeout"}"#] ?? 0) >= Double(count))
        try await daemon.stop()
    }

    @Test("Past max_connections new connections are closed at once and counted; the open ones are still served")
    func theCapRefusesNewConnections() async throws {
        _ = Self.raiseDescriptorLimit()
        let daemon = try await TestDaemon.start { $0.server.maxConnections = 40 }
        let open = try await onThread { try (0..<40).map { _ in try RawConnection(port: daemon.port) } }
        // The daemon counts a connection when it sets it up: let it catch up with the kernel's accepts.
        try open[0].send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try await open[0].response().status == 200)
        let refused = try RawConnection(port: daemon.port)
        #expect(await refused.closedByServer(within: .seconds(5)))
        refused.close()
        try open[39].send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try await open[39].response().status == 200)
        try open[0].send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        let metrics = try PrometheusText.parse(try await open[0].response().body)
        #expect((metrics["thumbd_connections_refused_total"] ?? 0) >= 1)
        #expect(metrics["thumbd_connections_open"] == 40)
        // Room again once some close.
        for connection in open.suffix(5) { connection.close() }
        try await Task.sleep(for: .milliseconds(300))
        let again = try RawConnection(port: daemon.port)
        try again.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try await again.response().status == 200)
        again.close()
        for connection in open { connection.close() }
        try await daemon.stop()
    }

    @Test("10,000 connection attempts leave the daemon's descriptors and memory where they were")
    func manyAttemptsLeaveNothingBehind() async throws {
        _ = Self.raiseDescriptorLimit()
        let daemon = try await TestDaemon.start { $0.server.maxConnections = 100 }
        #expect(try await daemon.get("/healthz").status == 200)
        let descriptorsBefore = Self.openDescriptors()
        let rssBefore = ProcessRSS.current()
        // Four clients at once, each connecting, sometimes sending half a request, and resetting
        // (a reset leaves no TIME_WAIT behind to use up this machine's ports).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in 0..<4 {
                group.addTask {
                    try await onThread {
                        for attempt in 0..<2500 {
                            let connection = try RawConnection(port: daemon.port)
                            if (attempt + client) % 3 == 0 { _ = connection.sendWithoutWaiting(Self.halfRequest) }
                            connection.reset()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let metrics = try await daemon.metrics(within: .seconds(10), interval: .milliseconds(100)) { ($0["thumbd_connections_open"] ?? 0) <= 1 }
        #expect((metrics["thumbd_connections_open"] ?? 99) <= 1)
        #expect(Self.openDescriptors() - descriptorsBefore < 50, "descriptors before \(descriptorsBefore), after \(Self.openDescriptors())")
        #expect(ProcessRSS.current() - rssBefore < 64 << 20, "RSS grew by \((ProcessRSS.current() - rssBefore) >> 20) MiB")
        #expect(try await daemon.get("/healthz").status == 200)
        try await daemon.stop()
    }

    @Test("An idle kept-alive connection is closed after the keep-alive timeout; a stalled upload after the body timeout")
    func idleAndStalledConnectionsAreClosed() async throws {
        let daemon = try await TestDaemon.start {
            $0.server.keepAliveTimeout = .seconds(1)
            $0.server.bodyTimeout = .seconds(1)
        }
        let idle = try RawConnection(port: daemon.port)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(try await idle.response().status == 200)
        let since = ContinuousClock.now
        #expect(await idle.closedByServer(within: .seconds(10)))
        #expect(ContinuousClock.now - since >= .milliseconds(800))
        idle.close()

        let upload = try RawConnection(port: daemon.port)
        try upload.send("POST /v1/uploads/prepare HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=b\r\n"
                        + "Content-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name=\"photo\"")
        #expect(await upload.closedByServer(within: .seconds(10)))
        upload.close()
        let metrics = try await daemon.metrics()
        #expect((metrics[#"thumbd_connections_timed_out_total{reason="keepalive_timeout"}"#] ?? 0) >= 1)
        #expect((metrics[#"thumbd_connections_timed_out_total{reason="body_timeout"}"#] ?? 0) >= 1)
        try await daemon.stop()
    }

    @Test("A client that pipelines requests and reads nothing is closed after the send timeout, and stops being read meanwhile")
    func aClientThatDoesNotReadIsClosed() async throws {
        let origin = try await TestOrigin.start(routes: ["/p.jpg": .image(Images.jpeg)])
        let daemon = try await TestDaemon.start { $0.server.sendTimeout = .seconds(1) }
        let path = daemon.thumbnailPath(origin.url("/p.jpg"), "size=400")
        #expect(try await daemon.get(path).status == 200)
        let answeredBefore = try await daemon.metrics()[#"thumbd_thumbnail_responses_total{cache="memory"}"#] ?? 0
        let reader = try RawConnection(port: daemon.port, receiveBuffer: 4096)
        let request = "GET \(path) HTTP/1.1\r\nHost: t\r\n\r\n"
        // Far more requests (10 MB) than the socket buffers hold, and far more answers. The daemon
        // stops reading once it cannot write, so it answers a few hundred, not the tens of
        // thousands that reach its socket (it held 21,000 answers in memory before it stopped).
        let requests = 100_000
        var sent = 0
        for _ in 0..<requests { sent += reader.sendWithoutWaiting(request) }
        // Reading nothing, for longer than the send timeout.
        try await Task.sleep(for: .seconds(4))
        let metrics = try await daemon.metrics()
        #expect((metrics[#"thumbd_connections_timed_out_total{reason="send_timeout"}"#] ?? 0) >= 1)
        let answered = (metrics[#"thumbd_thumbnail_responses_total{cache="memory"}"#] ?? 0) - answeredBefore
        #expect(answered < 3000, "answered \(Int(answered)) of the \(sent / request.utf8.count) requests sent")
        #expect(await reader.closedByServer(within: .seconds(20)))
        reader.close()
        try await daemon.stop()
        try await origin.shutdown()
    }

    @Test("A client that reads its answer one byte a second holds no job slot: the next miss is made at once")
    func aSlowReaderHoldsNoSlot() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg), "/b.jpg": .image(Images.otherJPEG)])
        let daemon = try await TestDaemon.start {
            $0.pipeline.maxJobs = 1
            $0.download.maxConcurrent = 1
        }
        let slow = try RawConnection(port: daemon.port, receiveBuffer: 1024)
        try slow.send("GET \(daemon.thumbnailPath(origin.url("/a.jpg"), "size=800&format=png")) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(await origin.waitForRequests("/a.jpg", count: 1, timeout: .seconds(20)))
        let trickle = Task.detached {
            var byte = [UInt8](repeating: 0, count: 1)
            for _ in 0..<5 {
                _ = recv(slow.descriptor, &byte, 1, Int32(MSG_DONTWAIT))
                try await Task.sleep(for: .seconds(1))
            }
        }
        // Once its thumbnail is made (however long that takes on a loaded machine), the slow reader
        // is only being written to: it must hold no slot while it trickles.
        _ = try await daemon.metrics(within: .seconds(30), interval: .milliseconds(50)) { $0["thumbd_jobs_in_flight"] == 0 }
        try await Task.sleep(for: .milliseconds(300))
        let started = ContinuousClock.now
        let other = try await daemon.get(daemon.thumbnailPath(origin.url("/b.jpg")))
        #expect(other.status == 200 && other.header("x-cache") == "miss", "\(other.status) \(String(decoding: other.body, as: UTF8.self))")
        #expect(ContinuousClock.now - started < .seconds(3), "the second miss waited for the slow reader")
        trickle.cancel()
        slow.close()
        try await daemon.stop()
        try await origin.shutdown()
    }
}

/// `work` on a thread of its own: blocking socket calls must not hold the concurrency pool.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
