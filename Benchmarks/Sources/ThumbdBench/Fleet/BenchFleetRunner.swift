#if canImport(Glibc)
import ThumbVariant
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import ThumbPipeline
import ThumbFleet
import TestSupport
import ThumbServer

/// Runs the phases of `thumbd-bench fleet` (see its --help) and gathers their figures. Every child
/// it starts is stopped by its pid before it returns, or by `cleanUp` after an error.
struct BenchFleetRunner: BenchHitRunning {
    static let nodeCount = 3

    let options: BenchFleetCommand
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let setUp: BenchHitSetUp
    let nginx: String
    var children: [BenchServeProcess] = []

    init(options: BenchFleetCommand) throws {
        self.options = options
        setUp = try BenchHitSetUp(requiringNginx: true)
        nginx = setUp.nginx ?? ""
    }

    mutating func cleanUp() {
        Self.stopTogether(Array(children.reversed()))
        children.removeAll()
        setUp.finish(keep: options.hits.keep)
    }

    /// SIGTERM to all at once (a node drains for its drain grace), then waits for each; SIGKILL
    /// for any still running after 30 s. Exit statuses in the same order.
    @discardableResult
    static func stopTogether(_ processes: [BenchServeProcess]) -> [Int32?] {
        for process in processes where process.isRunning { kill(process.pid, SIGTERM) }
        return processes.map { $0.wait(timeout: 30) ?? $0.stop(SIGKILL, grace: 5) }
    }

    func say(_ line: String) {
        FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
    }

    mutating func track(_ server: BenchServer) -> BenchServer {
        children.append(server.process)
        return server
    }

    mutating func forget(_ process: BenchServeProcess) {
        children.removeAll { $0 === process }
    }

    /// bench serve's photo: its URL on the origin, its thumbnail at --size (`hotPath`, here in the
    /// canonical query) and, once warmed, the thumbnail's bytes and static file.
    typealias Photo = BenchPhoto

    /// A photo's path on the origin, percent-encoded as its URL spells it.
    static func originPath(_ name: String) -> String {
        "/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)
    }

    // MARK: - The run

    mutating func run() throws -> BenchFleetResults {
        var results = BenchFleetResults(cores: cores, build: BenchBuild.kind, thumbd: executable,
                                        nginxVersion: BenchNginx.version(executable: nginx), wrkVersion: BenchWrk.version(executable: wrk),
                                        corpus: options.hits.corpus, size: options.hits.size,
                                        nginxConfig: FleetNginxConfig.shippedFolder.appendingPathComponent("thumbd.conf").path)
        let corpus = try BenchCorpus.load(options.hits.corpus)
        for error in corpus.errors { results.notes.append("corpus: \(error.file) left out: \(error.code) \(error.message)") }
        guard !corpus.files.isEmpty else { throw ValidationErrorMessage("no readable JPEG, PNG, WebP or AVIF files in \(options.hits.corpus)") }

        say("origin: python3 -m http.server over \(options.hits.corpus) (\(corpus.files.count) photos)")
        let origin = track(try BenchOrigin.start(python: python, directory: options.hits.corpus, logs: logs))
        let originLog = origin.process.stdoutPath
        var photos = corpus.files.map { file -> Photo in
            let url = "http://127.0.0.1:\(origin.port)\(Self.originPath(file.name))"
            return Photo(name: file.name, megapixels: file.megapixels, originURL: url, hotPath: Self.thumbnailPath(url, size: options.hits.size))
        }

        if options.sharedTier == .only {
            results.sharedTier = try sharedTier(photos: photos, originPort: origin.port, originLog: originLog, notes: &results.notes)
            Self.stopTogether([origin.process])
            children.removeAll()
            results.targets = BenchFleetResults.targets(results)
            return results
        }

        let nodePorts = try (0..<Self.nodeCount).map { _ in try BenchProc.freePort() }
        say("nginx: the shipped fleet config for \(Self.nodeCount) nodes, without and with the edge cache; access logs on")
        let fleet = track(try BenchFleetNginx.startFront(executable: nginx, nodePorts: nodePorts, directory: try scratch.folder("nginx-fleet"),
                                                         edgeCache: false, workers: cores))
        let edge = track(try BenchFleetNginx.startFront(executable: nginx, nodePorts: nodePorts, directory: try scratch.folder("nginx-edge"),
                                                        edgeCache: true, workers: cores))
        var nodes: [BenchFleetNode] = []
        for (index, port) in nodePorts.enumerated() {
            say("node \(index): thumbd serve on port \(port), default settings")
            let (node, seconds) = try BenchFleetNode.start(executable: executable, index: index, port: port,
                                                           cacheDirectory: try scratch.folder("node-\(index)"),
                                                           fleetEntry: "http://127.0.0.1:\(fleet.port)", logs: logs, run: 1)
            children.append(node.server.process)
            nodes.append(node)
            results.nodes.append(.init(index: index, port: port, firstStartSecondsToReady: seconds))
        }
        try fleet.waitUntilReady(path: "/healthz")
        try edge.waitUntilReady(path: "/healthz")

        try warm(fleet: fleet, photos: &photos, notes: &results.notes)
        guard !photos.isEmpty else { throw ValidationErrorMessage("the fleet made no thumbnail of any photo; see \(logs)") }
        let urls = photos.map(\.originURL)
        let warmListing = try settledListing(nodes.map(\.port), photoURLs: urls)
        results.afterWarmup = BenchFleetHoldings(warmListing, origin: Self.originRequests(photos, log: originLog))
        for (index, photos) in warmListing.photosByNode.enumerated() { results.nodes[index].photosAfterWarmup = photos.count }

        let (peer, identical) = try startStaticPeer(photos: &photos, notes: &results.notes)
        results.thumbnails = BenchHotSet(photos, nginxBytesIdentical: identical)
        results.edgeHits = try warmEdge(edge, photos: photos, notes: &results.notes)

        let hitRuns = BenchFleetHitRuns(options: options, wrk: wrk, logs: logs, cores: cores, nodes: nodes)
        let series = try hitRuns.measure([
            .init(name: "nginx, static files", server: peer, paths: photos.map(\.staticPath), frontsNodes: false),
            .init(name: "fleet (nginx -> nodes)", server: fleet, paths: photos.map(\.hotPath), frontsNodes: true),
            .init(name: "fleet + edge cache", server: edge, paths: photos.map(\.hotPath), frontsNodes: true),
        ], notes: &results.notes)
        results.hits = .init(runs: BenchHitRuns(options.hits),
                             staticFiles: series[0], fleet: series[1], edgeCache: series[2])
        forget(peer.process)
        Self.stopTogether([peer.process, edge.process])
        forget(edge.process)

        // The node that holds the most photos: the largest share of the load moves.
        let victim = warmListing.photosByNode.indices.max { warmListing.photosByNode[$0].count < warmListing.photosByNode[$1].count } ?? 0
        let (failover, loadStopped) = try killUnderLoad(fleet: fleet, node: nodes[victim], photos: photos,
                                                   victimPhotos: warmListing.photosByNode[victim])
        results.failover = failover
        forget(nodes[victim].server.process)

        results.restart = try restart(&nodes[victim], fleet: fleet, photos: photos, victimPhotos: warmListing.photosByNode[victim],
                                      loadStopped: loadStopped, originLog: originLog)
        children.append(nodes[victim].server.process)
        results.atEnd = BenchFleetHoldings(try BenchFleetListing.read(ports: nodes.map(\.port), photoURLs: urls),
                                           origin: Self.originRequests(photos, log: originLog))

        let statuses = Self.stopTogether(nodes.map(\.server.process))
        for (node, status) in zip(nodes, statuses) where status != 0 {
            results.notes.append("node \(node.index) exited with status \(status.map(String.init) ?? "?") on SIGTERM (expected 0)")
        }
        Self.stopTogether([fleet.process])
        forget(fleet.process)
        if options.runsSharedTier {
            results.sharedTier = try sharedTier(photos: photos, originPort: origin.port, originLog: originLog, notes: &results.notes)
        } else {
            results.notes.append("the SHARED TIER phase did not run: " + (options.sharedTier == .off ? "--shared-tier off" : "SeaweedFS is not installed (make s3-deps)"))
        }
        Self.stopTogether([origin.process])
        children.removeAll()
        results.targets = BenchFleetResults.targets(results)
        return results
    }

    /// The origin's GETs of each photo so far.
    static func originRequests(_ photos: [Photo], log: String) -> BenchFleetOriginRequests {
        .read(logFile: log, photoPaths: photos.map { originPath($0.name) }, names: photos.map(\.name))
    }

    /// The thumbnail query as thumbd's fleet clients write it, so nginx hashes every request for a
    /// photo the same way.
    static func thumbnailPath(_ url: String, size: Int) -> String {
        EntryPointMaker.thumbnailPath(url: url, variant: Variant(size: size))
    }

    // MARK: - Warming

    /// Both sizes of every photo at about the same moment, 8 requests at a time, through the
    /// fleet; then --size again, which must be a memory hit. Photos refused are left out (noted).
    func warm(fleet: BenchServer, photos: inout [Photo], notes: inout [String]) throws {
        say("warm-up: \(photos.count) photos at sizes \(options.hits.size) and \(2 * options.hits.size) through the fleet")
        let paths = photos.flatMap { [$0.hotPath, Self.thumbnailPath($0.originURL, size: 2 * options.hits.size)] }
        let next = BenchCounter()
        let statuses = BenchIndexed<Int>()
        let port = fleet.port
        BenchThreads.run(8) { _ in
            while true {
                let index = next.take()
                guard index < paths.count else { return }
                let status = (try? BenchHTTP.get(port: port, path: paths[index], timeout: 120))?.status ?? 0
                statuses.record(index, status)
            }
        }
        let firstStatuses = statuses.all
        var kept: [Photo] = []
        for (index, var photo) in photos.enumerated() {
            let answer = try BenchHTTP.get(port: fleet.port, path: photo.hotPath)
            guard firstStatuses[2 * index] == 200, firstStatuses[2 * index + 1] == 200, answer.status == 200 else {
                notes.append("the fleet refused \(photo.name) (statuses \(firstStatuses[2 * index] ?? 0), \(firstStatuses[2 * index + 1] ?? 0), \(answer.status)); left out")
                continue
            }
            if answer.headers["x-cache"] != "memory" {
                notes.append("warm-up: the second request for \(photo.name) came from '\(answer.headers["x-cache"] ?? "?")', expected 'memory'")
            }
            photo.bytes = answer.body
            photo.contentType = answer.headers["content-type"] ?? "?"
            kept.append(photo)
        }
        photos = kept
    }

    /// The nodes' listing once it stops changing (a node writes its index in batches), at most 10 s.
    func settledListing(_ ports: [Int], photoURLs: [String]) throws -> BenchFleetListing {
        var listing = try BenchFleetListing.read(ports: ports, photoURLs: photoURLs)
        for _ in 0..<20 {
            usleep(500_000)
            let again = try BenchFleetListing.read(ports: ports, photoURLs: photoURLs)
            if again.entriesByNode == listing.entriesByNode { break }
            listing = again
        }
        return listing
    }

    /// The peer: the warm thumbnails' bytes as static files, checked byte for byte (whether all
    /// were the same is the second value).
    private mutating func startStaticPeer(photos: inout [Photo], notes: inout [String]) throws -> (BenchServer, Bool) {
        let www = try scratch.folder("www")
        try BenchStaticPeer.publish(&photos, www: www)
        say("static nginx: \(cores) workers serving the \(photos.count) thumbnails as files; access log on")
        let server = track(try BenchFleetNginx.startStatic(executable: nginx, root: www, directory: try scratch.folder("nginx-static"), workers: cores))
        let identical = try BenchStaticPeer.servesExactly(server, photos, label: "static nginx", notes: &notes)
        return (server, identical)
    }

    /// Asks each thumbnail of the edge front until X-Edge-Cache says HIT (at most 3 times); how
    /// many did, with the fleet's bytes.
    private func warmEdge(_ edge: BenchServer, photos: [Photo], notes: inout [String]) throws -> Int {
        say("edge cache: warming \(photos.count) thumbnails")
        var hits = 0
        for photo in photos {
            var last: BenchHTTP.Response?
            for _ in 0..<3 {
                last = try BenchHTTP.get(port: edge.port, path: photo.hotPath)
                if last?.headers["x-edge-cache"] == "HIT" { break }
            }
            guard let last, last.headers["x-edge-cache"] == "HIT", last.status == 200 else {
                notes.append("edge cache: \(photo.name) is not a HIT after 3 requests (X-Edge-Cache \(last?.headers["x-edge-cache"] ?? "absent"), status \(last?.status ?? 0))")
                continue
            }
            if last.body != photo.bytes { notes.append("edge cache: the bytes of \(photo.name) differ from the fleet's") }
            hits += 1
        }
        return hits
    }

    // MARK: - Failover and restart

    /// The steady load through the fleet, the node's kill -9 in the middle; also when the load stopped.
    private func killUnderLoad(fleet: BenchServer, node: BenchFleetNode, photos: [Photo],
                          victimPhotos: Set<Int>) throws -> (BenchFleetFailover, Double) {
        say("failover: \(options.failoverConnections) connections through the fleet, kill -9 of node \(node.index)"
            + " (\(victimPhotos.count) photos) after \(options.failoverBefore) s, \(options.failoverAfter) s more")
        let startedAt = BenchStats.now()
        let load = BenchFleetLoad.start(port: fleet.port, paths: photos.map(\.hotPath), connections: options.failoverConnections,
                                        pauseMs: options.failoverPauseMs)
        usleep(useconds_t(options.failoverBefore * 1_000_000))
        let killedAt = BenchStats.now()
        node.server.process.stop(SIGKILL, grace: 5)
        usleep(useconds_t(options.failoverAfter * 1_000_000))
        let outcomes = load.stop()
        let stopped = BenchStats.now()
        return (BenchFleetFailover.analyse(outcomes, startedAt: startedAt, killedAt: killedAt, killedNode: node.index,
                                           killedNodePhotos: victimPhotos, photoNames: photos.map(\.name),
                                           connections: options.failoverConnections, pauseMs: options.failoverPauseMs), stopped)
    }

    /// Starts the killed node on its old directory, waits until nginx takes it back, and asks for
    /// each of its photos once through the fleet.
    private func restart(_ node: inout BenchFleetNode, fleet: BenchServer, photos: [Photo], victimPhotos: Set<Int>,
                         loadStopped: Double, originLog: String) throws -> BenchFleetResults.Restart {
        say("restart: node \(node.index) on its old cache directory")
        let (restarted, seconds) = try BenchFleetNode.start(executable: executable, index: node.index, port: node.port,
                                                            cacheDirectory: node.cacheDirectory,
                                                            fleetEntry: "http://127.0.0.1:\(fleet.port)", logs: logs, run: 2)
        node = restarted
        // nginx tries a failed node again once fail_timeout has passed since its last failure,
        // which was at the latest when the load stopped.
        let failTimeout = Double(try FleetNginxConfig.shippedFailTimeout().components.seconds)
        let waitUntil = loadStopped + failTimeout + 0.5
        let waited = max(0, waitUntil - BenchStats.now())
        usleep(useconds_t(waited * 1e6))
        let originBefore = Self.originRequests(photos, log: originLog).total
        let before = BenchMetrics.scrape(port: node.port)
        var answered200 = 0
        for photo in victimPhotos.sorted() {
            if try BenchHTTP.get(port: fleet.port, path: photos[photo].hotPath).status == 200 { answered200 += 1 }
        }
        let after = BenchMetrics.scrape(port: node.port)
        var byTier: [String: Int] = [:]
        for tier in ["memory", "disk", "miss"] {
            let series = "cache=\"\(tier)\""
            let delta = Int((after?.value("thumbd_thumbnail_responses_total", series) ?? 0) - (before?.value("thumbd_thumbnail_responses_total", series) ?? 0))
            if delta > 0 { byTier[tier] = delta }
        }
        let originAfter = Self.originRequests(photos, log: originLog).total
        return .init(node: node.index, secondsToReady: seconds, waitedForNginxSeconds: waited, photos: victimPhotos.count,
                     answered200: answered200, cameHome: byTier.values.reduce(0, +), cameHomeByTier: byTier,
                     originRequests: originAfter - originBefore)
    }
}
