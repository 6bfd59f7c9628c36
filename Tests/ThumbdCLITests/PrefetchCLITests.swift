import ChildProcess
import DaemonTestSupport
import Foundation
import Testing
import TestOrigin

@Suite("thumbd prefetch: to a running daemon, in-process without one, Ctrl-C")
struct PrefetchCLITests {
    static func environment(_ pairs: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("THUMBD_") }
        environment.merge(pairs) { $1 }
        return environment
    }

    static func run(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, stderr: String) {
        try await ServeProcess.runCLI(arguments, environment: environment)
    }

    @Test("With a daemon running, the job is sent to it and the summary printed")
    func sendsToDaemon() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg), "/b.png": .image(Images.png, contentType: "image/png")])
        let daemon = try await TestDaemon.start()
        let (status, stderr) = try await Self.run(["prefetch", origin.url("/a.jpg"), origin.url("/b.png"), "--size", "64"],
                                                  environment: Self.environment(["THUMBD_LISTEN": "127.0.0.1:\(daemon.port)"]))
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("2 URLs: 2 made"), "\(stderr)")
        #expect(stderr.contains("the daemon at http://127.0.0.1:\(daemon.port)"))
        #expect(daemon.daemon.prefetcher.list().count == 1)
        #expect(daemon.cache.memory.stats.entries == 2)
        try await daemon.stop()
        try await origin.shutdown()
    }

    /// Several --size: the daemon's `sizes` (one download a photo), or the same in-process.
    @Test("--size given several times makes every size of each photo from one download, to a daemon or in-process", arguments: [true, false])
    func severalSizes(toDaemon: Bool) async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg), "/b.jpg": .image(Images.jpeg)])
        let daemon = toDaemon ? try await TestDaemon.start() : nil
        let directory = try TestDaemon.temporaryDirectory()
        let environment = Self.environment(["THUMBD_LISTEN": "127.0.0.1:\(daemon?.port ?? 1)", "THUMBD_CACHE_DIR": directory.path,
                                            "THUMBD_ALLOW_NETWORKS": "127.0.0.1/32"])
        let (status, stderr) = try await Self.run(["prefetch", origin.url("/a.jpg"), origin.url("/b.jpg"), "--size", "64", "--size", "96x72",
                                                   "--size", "128", "--gravity", "center"], environment: environment)
        #expect(status == 0, "\(stderr)")
        #expect(stderr.contains("6 thumbnails (3 sizes of each URL): 6 made"), "\(stderr)")
        #expect(origin.requestCount("/a.jpg") == 1 && origin.requestCount("/b.jpg") == 1)
        if let daemon {
            #expect(daemon.cache.memory.stats.entries == 6)
            try await daemon.stop()
        } else {
            let listing = try ChildProcess.run(ServeProcess.executable, ["cache", "ls", "--json", "--cache-dir", directory.path], timeoutSeconds: 60)
            let entries = try JSONSerialization.jsonObject(with: Data(listing.stdout)) as? [[String: Any]] ?? []
            #expect(Set(entries.filter { ($0["kind"] as? String) == "thumbnail" }.compactMap { $0["variant"] as? String }).count == 3, "\(entries)")
        }
        // Two spellings of one box are one thumbnail; the same spelling twice is a usage error.
        let alike = try await Self.run(["prefetch", origin.url("/a.jpg"), "--size", "64", "--size", "64x64", "--gravity", "center"],
                                       environment: environment)
        #expect(alike.status == 0 && alike.stderr.contains("  1 URLs: "), "\(alike.stderr)")
        let twice = try await Self.run(["prefetch", origin.url("/a.jpg"), "--size", "64", "--size", "64"], environment: environment)
        #expect(twice.status == 2 && twice.stderr.contains("given twice"), "\(twice.stderr)")
        try await origin.shutdown()
    }

    @Test("Without a daemon the work is done in-process against the same cache; failures exit 1 with their codes")
    func inProcess() async throws {
        let origin = try await TestOrigin.start(routes: ["/a.jpg": .image(Images.jpeg), "/gone.jpg": .status(404)])
        let directory = try TestDaemon.temporaryDirectory()
        let environment = Self.environment(["THUMBD_LISTEN": "127.0.0.1:1", "THUMBD_CACHE_DIR": directory.path,
                                            "THUMBD_ALLOW_NETWORKS": "127.0.0.1/32"])
        let (status, stderr) = try await Self.run(["prefetch", origin.url("/a.jpg"), origin.url("/gone.jpg"), "--size", "64"],
                                                  environment: environment)
        #expect(status == 1, "\(stderr)")
        #expect(stderr.contains("this process (no daemon answered)"), "\(stderr)")
        #expect(stderr.contains("origin_status"), "\(stderr)")
        #expect(stderr.contains("1 made"), "\(stderr)")
        let listing = try ChildProcess.run(ServeProcess.executable, ["cache", "ls", "--json", "--cache-dir", directory.path], timeoutSeconds: 60)
        let entries = try JSONSerialization.jsonObject(with: Data(listing.stdout)) as? [[String: Any]]
        #expect(entries?.contains { ($0["url"] as? String) == origin.url("/a.jpg") && ($0["kind"] as? String) == "thumbnail" } == true)
        // A second run finds it cached.
        let again = try await Self.run(["prefetch", origin.url("/a.jpg"), "--size", "64"], environment: environment)
        #expect(again.status == 0)
        #expect(again.stderr.contains("1 already cached"), "\(again.stderr)")
        #expect(origin.requestCount("/a.jpg") == 1)
        try await origin.shutdown()
    }

    @Test("Ctrl-C cancels the job: downloads are closed and the exit status is 130")
    func interruptCancels() async throws {
        var routes: [String: OriginRoute] = [:]
        for index in 0..<20 { routes["/s\(index).jpg"] = .image(Images.jpeg, latency: .seconds(5)) }
        let origin = try await TestOrigin.start(routes: routes)
        let directory = try TestDaemon.temporaryDirectory()
        let process = try BackgroundProcess(
            name: "thumbd prefetch", program: ServeProcess.executable, arguments: ["prefetch"] + (0..<20).map { origin.url("/s\($0).jpg") },
            environment: Self.environment(["THUMBD_LISTEN": "127.0.0.1:1", "THUMBD_CACHE_DIR": directory.path,
                                           "THUMBD_ALLOW_NETWORKS": "127.0.0.1/32"]),
            stdoutPath: "/dev/null", stderrPath: directory.appendingPathComponent("stderr.txt").path)
        #expect(await origin.waitForTotalRequests(count: 3, timeout: .seconds(30)))
        kill(process.pid, SIGINT)
        #expect(await ServeProcess.waitForExit(process, timeout: .seconds(10)))
        #expect(process.exitStatus == 130)
        // The origin counts a close when its event loop sees it, which may be after the exit: polled.
        let deadline = ContinuousClock.now + .seconds(20)
        var closed = 0
        repeat {
            closed = (0..<20).reduce(0) { $0 + origin.earlyCloses("/s\($1).jpg") }
            if closed == origin.totalRequests && closed > 0 { break }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        #expect(closed == origin.totalRequests && closed > 0, "\(closed) of \(origin.totalRequests) downloads closed early")
        try await origin.shutdown()
    }
}
