#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConsoleText
import Foundation
import TestSupport

/// SHARED TIER (see `thumbd-bench fleet --help`): three nodes with one shared tier on SeaweedFS
/// behind the shipped nginx config; under a steady load a node is killed with SIGKILL and an empty
/// node takes its place, then a fourth node is added (nginx reloaded). What the fleet had made must
/// come from the tier: no original downloaded again, no failed request.
extension BenchFleetRunner {
    static let sharedBucket = "thumbd-fleet"
    private var adminToken: String { "thumbd-bench-\(getpid())" }

    mutating func sharedTier(photos corpusPhotos: [Photo], originPort: Int, originLog: String,
                             notes: inout [String]) throws -> BenchFleetSharedTier {
        say("shared tier: SeaweedFS on loopback, three new nodes writing to and reading from one bucket")
        let store = try S3TestServer.start()
        defer { store.stop() }
        try store.makeBucket(Self.sharedBucket)
        let prefix = "fleet-" + UUID().uuidString.prefix(8).lowercased()
        let tier = [
            "THUMBD_CACHE_SHARED": "s3://\(Self.sharedBucket)/\(prefix)",
            "AWS_ACCESS_KEY_ID": S3TestServer.accessKey, "AWS_SECRET_ACCESS_KEY": S3TestServer.secretKey,
            "AWS_ENDPOINT_URL_S3": store.endpoint, "AWS_REGION": "us-east-1",
            // The eviction at the end is an admin route.
            "THUMBD_ADMIN_TOKEN": adminToken,
        ]
        // Its own URLs (a query the origin ignores), so the earlier phases' downloads do not count.
        let marker = "?tier=shared"
        var photos = corpusPhotos.map { photo -> Photo in
            let url = "http://127.0.0.1:\(originPort)\(Self.originPath(photo.name))\(marker)"
            return Photo(name: photo.name, megapixels: photo.megapixels, originURL: url, hotPath: Self.thumbnailPath(url, size: options.hits.size))
        }
        let originRequests = { (photos: [Photo]) in
            BenchFleetOriginRequests.read(logFile: originLog, photoPaths: photos.map { Self.originPath($0.name) + marker }, names: photos.map(\.name))
        }

        var ports = try (0..<Self.nodeCount).map { _ in try BenchProc.freePort() }
        let frontDirectory = try scratch.folder("nginx-shared")
        let front = track(try BenchFleetNginx.startFront(executable: nginx, nodePorts: ports, directory: frontDirectory,
                                                         edgeCache: false, workers: cores))
        let entry = "http://127.0.0.1:\(front.port)"
        var nodes: [BenchFleetNode] = []
        for (index, port) in ports.enumerated() {
            let (node, _) = try BenchFleetNode.start(executable: executable, index: index, port: port,
                                                     cacheDirectory: try scratch.folder("shared-node-\(index)"), fleetEntry: entry,
                                                     extra: tier, label: "shared-node", logs: logs, run: 1)
            children.append(node.server.process)
            nodes.append(node)
        }
        try front.waitUntilReady(path: "/healthz")

        try warm(fleet: front, photos: &photos, notes: &notes)
        guard !photos.isEmpty else { throw ValidationErrorMessage("the shared-tier fleet made no thumbnail; see \(logs)") }
        var result = BenchFleetSharedTier(prefix: "s3://\(Self.sharedBucket)/\(prefix)", photos: photos.count)
        try waitForTierWrites(nodes.map(\.port), into: &result)
        result.objectsInTier = try store.count(bucket: Self.sharedBucket, prefix: prefix + "/")
        let afterWarmup = originRequests(photos)
        result.originRequestsAfterWarmup = afterWarmup.total

        let listing = try settledListing(nodes.map(\.port), photoURLs: photos.map(\.originURL))
        let victim = listing.photosByNode.indices.max { listing.photosByNode[$0].count < listing.photosByNode[$1].count } ?? 0
        result.killedNode = victim
        result.killedNodePhotos = listing.photosByNode[victim].count

        let paths = photos.flatMap { [$0.hotPath, Self.thumbnailPath($0.originURL, size: 2 * options.hits.size)] }
        say("shared tier: load over both sizes of \(photos.count) photos; kill -9 of node \(victim), an empty node in its place, then a fourth node")
        let load = BenchFleetLoad.start(port: front.port, paths: paths, connections: options.failoverConnections, pauseMs: options.failoverPauseMs)
        var marks: [(String, Double)] = [("three nodes", BenchStats.now())]
        usleep(useconds_t(options.failoverBefore * 1_000_000))

        marks.append(("node \(victim) killed", BenchStats.now()))
        nodes[victim].server.process.stop(SIGKILL, grace: 5)
        forget(nodes[victim].server.process)
        usleep(3_000_000)

        let (replacement, replacementReady) = try BenchFleetNode.start(
            executable: executable, index: victim, port: nodes[victim].port,
            cacheDirectory: try scratch.folder("shared-node-\(victim)-replacement"), fleetEntry: entry,
            extra: tier, label: "shared-node", logs: logs, run: 2)
        children.append(replacement.server.process)
        nodes[victim] = replacement
        result.replacementSecondsToReady = replacementReady
        marks.append(("empty node in its place", BenchStats.now()))
        // nginx sends it requests again once fail_timeout has passed since its last failure.
        usleep(useconds_t((Double(try FleetNginxConfig.shippedFailTimeout().components.seconds) + 2) * 1e6))

        let addedPort = try BenchProc.freePort()
        let (added, addedReady) = try BenchFleetNode.start(
            executable: executable, index: Self.nodeCount, port: addedPort,
            cacheDirectory: try scratch.folder("shared-node-\(Self.nodeCount)"), fleetEntry: entry,
            extra: tier, label: "shared-node", logs: logs, run: 1)
        children.append(added.server.process)
        nodes.append(added)
        ports.append(addedPort)
        result.addedNodeSecondsToReady = addedReady
        var config = FleetNginxConfig(listenPort: front.port, nodePorts: ports, directory: URL(fileURLWithPath: frontDirectory))
        config.accessLog = true
        config.workers = cores
        _ = try config.write()
        kill(front.process.pid, SIGHUP)
        marks.append(("fourth node added (nginx reloaded)", BenchStats.now()))
        let reloadDeadline = BenchStats.now() + 15
        while (BenchMetrics.scrape(port: addedPort)?.value("thumbd_thumbnail_responses_total") ?? 0) == 0, BenchStats.now() < reloadDeadline {
            usleep(100_000)
        }
        usleep(5_000_000)
        let outcomes = load.stop()
        let stoppedAt = BenchStats.now()

        result.load = .init(outcomes, marks: marks, end: stoppedAt, pathName: { photos[$0 / 2].name })
        result.replacement = .init(port: replacement.port)
        result.added = .init(port: addedPort)
        let atEnd = originRequests(photos)
        result.originRequestsAgain = atEnd.total - afterWarmup.total
        result.photosDownloadedAgain = zip(photos.map(\.name), zip(atEnd.perPhoto, afterWarmup.perPhoto))
            .filter { $1.0 > $1.1 }.map(\.0)

        result.eviction = try evictOne(photos: photos, nodes: nodes, store: store, prefix: prefix, front: front,
                                       originRequests: { originRequests([$0]).total })
        let statuses = Self.stopTogether(nodes.map(\.server.process) + [front.process])
        for process in nodes.map(\.server.process) + [front.process] { forget(process) }
        for (node, status) in zip(nodes, statuses) where status != 0 {
            notes.append("shared tier: node \(node.index) exited with status \(status.map(String.init) ?? "?") on SIGTERM (expected 0)")
        }
        return result
    }

    /// Waits (at most 120 s) until every thumbnail the nodes made has been written to the tier or
    /// dropped (a full write queue), and records both.
    private func waitForTierWrites(_ ports: [Int], into result: inout BenchFleetSharedTier) throws {
        let deadline = BenchStats.now() + 120
        while true {
            let metrics = ports.map { BenchMetrics.scrape(port: $0) ?? BenchMetrics() }
            let made = metrics.map { $0.value("thumbd_thumbnail_responses_total", "cache=\"miss\"") ?? 0 }.reduce(0, +)
            let written = metrics.map { $0.value("thumbd_shared_writes_total") ?? 0 }.reduce(0, +)
            let dropped = metrics.map { $0.value("thumbd_shared_writes_dropped_total") ?? 0 }.reduce(0, +)
            result.thumbnailsMade = Int(made)
            result.writesToTier = Int(written)
            result.writesDropped = Int(dropped)
            if written + dropped >= made { return }
            guard BenchStats.now() < deadline else {
                throw ValidationErrorMessage("the nodes wrote \(Int(written)) of \(Int(made)) thumbnails to the shared tier in 120 s")
            }
            usleep(100_000)
        }
    }

    /// Evicts one photo on the node that holds it (preferably the added one); the tier's objects
    /// must go with it, and the fleet's next answer for it must be made anew from the origin.
    private func evictOne(photos: [Photo], nodes: [BenchFleetNode], store: S3TestServer, prefix: String, front: BenchServer,
                          originRequests: (Photo) -> Int) throws -> BenchFleetSharedTier.Eviction {
        let listing = try settledListing(nodes.map(\.port), photoURLs: photos.map(\.originURL))
        let holder = listing.photosByNode.indices.last { !listing.photosByNode[$0].isEmpty } ?? 0
        let photoIndex = listing.photosByNode[holder].min() ?? 0
        let photo = photos[photoIndex]
        say("shared tier: evicting \(photo.name) on node \(holder)")
        let objectsBefore = try store.count(bucket: Self.sharedBucket, prefix: prefix + "/")
        let originBefore = originRequests(photo)
        let answer = try BenchHTTP.request("DELETE", port: nodes[holder].port,
                                           path: "/v1/cache/entries?url=" + BenchHTTP.queryEscape(photo.originURL),
                                           headers: ["Authorization: Bearer \(adminToken)"])
        let body = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
        let objectsAfter = try store.count(bucket: Self.sharedBucket, prefix: prefix + "/")
        let next = try BenchHTTP.get(port: front.port, path: photo.hotPath)
        return .init(photo: photo.name, node: holder, status: answer.status, removedLocally: (body?["removed"] as? [String: Any])?["disk"] as? Int,
                     sharedRemoved: body?["shared_removed"] as? Int, sharedError: body?["shared_error"] as? String,
                     objectsBefore: objectsBefore, objectsAfter: objectsAfter,
                     nextAnswerStatus: next.status, nextAnswerCache: next.headers["x-cache"],
                     originRequestsForIt: originRequests(photo) - originBefore)
    }
}

/// What the SHARED TIER phase measured.
struct BenchFleetSharedTier: Encodable {
    var prefix: String
    var photos: Int
    /// Thumbnails the three nodes made in the warm-up (misses), written to the tier, dropped.
    var thumbnailsMade = 0
    var writesToTier = 0
    var writesDropped = 0
    var objectsInTier = 0
    var originRequestsAfterWarmup = 0
    var killedNode = 0
    var killedNodePhotos = 0
    var replacementSecondsToReady = 0.0
    var addedNodeSecondsToReady = 0.0
    var load = Load()
    var replacement = NodeFigures()
    var added = NodeFigures()
    /// Origin requests for the fleet's photos after the warm-up, through the kill, the replacement
    /// and the added node (goal 0), and the photos they were for.
    var originRequestsAgain = 0
    var photosDownloadedAgain: [String] = []
    var eviction: Eviction?

    struct Load: Encodable {
        var requests = 0
        var failed = 0
        var failedByStatus: [String: Int] = [:]
        var failureSamples: [String] = []
        var resentAfterIdleClose = 0
        var stages: [Stage] = []

        struct Stage: Encodable {
            var name: String
            var seconds: Double
            var requests: Int
            var failed: Int
            /// Answers by X-Cache (memory, disk, shared, miss).
            var byTier: [String: Int]
            var latency: BenchFleetFailover.Latency
        }

        init() {}

        /// Each request belongs to the stage it was sent in; `marks` are the stages' starts.
        init(_ outcomes: [BenchFleetOutcome], marks: [(String, Double)], end: Double, pathName: (Int) -> String) {
            requests = outcomes.count
            let failures = outcomes.filter { !$0.succeeded }.sorted { $0.sent < $1.sent }
            failed = failures.count
            for failure in failures { failedByStatus[String(failure.status), default: 0] += 1 }
            failureSamples = failures.prefix(10).map { "\(pathName($0.photo)): \($0.status == 0 ? "" : "\($0.status) ")\($0.failure ?? "")" }
            resentAfterIdleClose = outcomes.filter(\.resentAfterIdleClose).count
            for (index, (name, start)) in marks.enumerated() {
                let stop = index + 1 < marks.count ? marks[index + 1].1 : end
                let mine = outcomes.filter { $0.sent >= start && $0.sent < stop }
                var byTier: [String: Int] = [:]
                for outcome in mine where outcome.succeeded { byTier[outcome.cache ?? "?", default: 0] += 1 }
                stages.append(.init(name: name, seconds: stop - start, requests: mine.count, failed: mine.filter { !$0.succeeded }.count,
                                    byTier: byTier, latency: .init(mine)))
            }
        }
    }

    /// One node's counters at the end (its /metrics).
    struct NodeFigures: Encodable {
        var answersByTier: [String: Int] = [:]
        var sharedHits = 0
        var originBytesDownloaded = 0

        init() {}

        init(port: Int) {
            let metrics = BenchMetrics.scrape(port: port) ?? BenchMetrics()
            for tier in ["memory", "disk", "shared", "miss"] {
                let count = Int(metrics.value("thumbd_thumbnail_responses_total", "cache=\"\(tier)\"") ?? 0)
                if count > 0 { answersByTier[tier] = count }
            }
            sharedHits = Int(metrics.value("thumbd_shared_hits_total") ?? 0)
            originBytesDownloaded = Int(metrics.value("thumbd_download_bytes_total") ?? 0)
        }
    }

    struct Eviction: Encodable {
        var photo: String
        var node: Int
        var status: Int
        /// Entries removed from the node's disk tier.
        var removedLocally: Int?
        var sharedRemoved: Int?
        var sharedError: String?
        var objectsBefore: Int
        var objectsAfter: Int
        /// The fleet's next answer for the photo: made anew (miss), with one origin request.
        var nextAnswerStatus: Int
        var nextAnswerCache: String?
        var originRequestsForIt: Int

        var reachedTier: Bool { status == 200 && (sharedRemoved ?? 0) > 0 && objectsBefore - objectsAfter == sharedRemoved && nextAnswerCache == "miss" }
    }
}

extension BenchFleetSharedTier {
    func render() -> String {
        func ms(_ value: Double?) -> String { value.map { TextTable.fixed($0, $0 < 10 ? 2 : 1) } ?? "-" }
        func tiers(_ counts: [String: Int]) -> String {
            counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        var out = ["SHARED TIER: three new nodes with cache.shared \(prefix) (SeaweedFS on loopback) behind the shipped nginx config"]
        out.append("  warm-up: \(photos) photos at two sizes: \(thumbnailsMade) thumbnails made, \(writesToTier) written to the tier"
                   + " (\(writesDropped) dropped), \(objectsInTier) objects in it; \(originRequestsAfterWarmup) origin GETs")
        out.append("  node \(killedNode) (\(killedNodePhotos) photos) killed with SIGKILL; an empty node in its place ready in"
                   + " \(TextTable.fixed(replacementSecondsToReady, 3)) s; a fourth node ready in \(TextTable.fixed(addedNodeSecondsToReady, 3)) s")
        let byStatus = load.failedByStatus.sorted { $0.key < $1.key }.map { ($0.key == "0" ? "socket error" : $0.key) + " \($0.value)" }
        out.append("  load: \(load.requests) requests, failed: \(load.failed)" + (byStatus.isEmpty ? "" : " (" + byStatus.joined(separator: ", ") + ")")
                   + "; sent again after nginx closed an idle kept-alive connection (the reload): \(load.resentAfterIdleClose)")
        let rows = load.stages.map { stage in
            [stage.name, TextTable.fixed(stage.seconds, 1), "\(stage.requests)", "\(stage.failed)", tiers(stage.byTier),
             ms(stage.latency.p50Ms), ms(stage.latency.p99Ms), ms(stage.latency.maxMs)]
        }
        out.append(TextTable.render(["stage (requests by when sent)", "s", "requests", "failed", "answers by X-Cache", "p50 ms", "p99 ms", "max ms"], rows))
        out.append("  the empty node in node \(killedNode)'s place answered: \(tiers(replacement.answersByTier)); origin bytes it downloaded: \(replacement.originBytesDownloaded)")
        out.append("  the fourth node answered: \(tiers(added.answersByTier)); origin bytes it downloaded: \(added.originBytesDownloaded)")
        out.append("  origin GETs after the warm-up: \(originRequestsAgain)"
                   + (photosDownloadedAgain.isEmpty ? "" : " (" + photosDownloadedAgain.prefix(10).joined(separator: ", ") + ")"))
        if let e = eviction {
            out.append("  eviction of \(e.photo) on node \(e.node): status \(e.status), removed \(e.removedLocally.map(String.init) ?? "-") from its disk and"
                       + " \(e.sharedRemoved.map(String.init) ?? "-") from the tier\(e.sharedError.map { " (\($0))" } ?? ""); objects in the tier"
                       + " \(e.objectsBefore) -> \(e.objectsAfter); the fleet's next answer: \(e.nextAnswerStatus) X-Cache \(e.nextAnswerCache ?? "-"),"
                       + " \(e.originRequestsForIt) origin GET")
        }
        return out.joined(separator: "\n")
    }

    var targets: [BenchTarget] {
        var list: [BenchTarget] = [
            .init(name: "shared tier: failed requests (kill -9, empty replacement, fourth node)", value: Double(load.failed),
                  measured: "\(load.failed) of \(load.requests)", target: "0", met: load.failed == 0),
            .init(name: "shared tier: originals downloaded again after the warm-up", value: Double(originRequestsAgain),
                  measured: "\(originRequestsAgain) GETs", target: "0", met: originRequestsAgain == 0),
            .init(name: "shared tier: the empty replacement and the fourth node served from the tier",
                  value: Double(replacement.sharedHits + added.sharedHits),
                  measured: "\(replacement.sharedHits) + \(added.sharedHits) shared hits, \(replacement.originBytesDownloaded + added.originBytesDownloaded) origin bytes",
                  target: "> 0 each, 0 bytes",
                  met: replacement.sharedHits > 0 && added.sharedHits > 0 && replacement.originBytesDownloaded + added.originBytesDownloaded == 0),
        ]
        if let e = eviction {
            list.append(.init(name: "shared tier: an eviction on one node reaches the tier", value: Double(e.sharedRemoved ?? 0),
                              measured: "\(e.sharedRemoved ?? 0) objects removed, next answer \(e.nextAnswerCache ?? "-")",
                              target: "objects gone, next answer a miss", met: e.reachedTier))
        }
        return list
    }
}
