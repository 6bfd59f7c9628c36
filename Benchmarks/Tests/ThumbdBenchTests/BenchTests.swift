import Foundation
import Testing
import TestSupport

/// `thumbd-bench --json` end to end on two tiny JPEGs: the object has every section, and the
/// figures are sane. Speed itself is never asserted (a test machine's speed says nothing).
@Suite struct BenchTests {
    /// Two small files: a plain baseline JPEG and one with EXIF orientation 6.
    private static let sources = ["libjpeg-turbo/testorig.jpg", "pillow/hopper_orientation_6.jpg"]

    private func runBench() throws -> [String: Any] {
        let corpus = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: corpus) }
        for source in Self.sources {
            let from = try #require(TestPaths.corpus("jpeg/" + source))
            try FileManager.default.copyItem(at: from, to: corpus.appendingPathComponent(from.lastPathComponent))
        }
        let result = try BenchCLI.run(["--corpus", corpus.path, "--size", "64", "--rounds", "1", "--no-large", "--json"])
        #expect(result.status == 0, "bench failed: \(result.stderrText)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout))
        return try #require(object as? [String: Any])
    }

    private func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

    @Test(.requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func jsonHasEveryFigure() throws {
        let json = try runBench()
        for key in ["machine", "settings", "corpus", "thumbd", "thumbd_cli", "vips", "pillow", "floor", "ratios", "large", "errors", "notes"] {
            #expect(json[key] != nil, "missing key \(key)")
        }
        let corpus = try #require(json["corpus"] as? [String: Any])
        #expect(number(corpus["files"]) == 2)
        #expect(number(corpus["jpeg_files"]) == 2)
        #expect((json["errors"] as? [Any])?.isEmpty == true, "unexpected errors: \(json["errors"] ?? "")")

        // thumbd at the default headrooms 2 and 1, in that order.
        let runs = try #require(json["thumbd"] as? [[String: Any]])
        #expect(runs.compactMap { number($0["headroom"]) } == [2, 1])
        for run in runs {
            for mode in ["one_core", "all_cores", "jpeg_one_core"] {
                let throughput = try #require(run[mode] as? [String: Any], "no \(mode)")
                #expect((number(throughput["images_per_second"]) ?? 0) > 0, "\(mode) images/s")
                #expect((number(throughput["p50_ms"]) ?? 0) > 0, "\(mode) p50")
                #expect((number(throughput["p95_ms"]) ?? 0) >= (number(throughput["p50_ms"]) ?? .infinity), "\(mode) p95 below p50")
            }
            #expect((number((run["one_core"] as? [String: Any])?["peak_rss_bytes"]) ?? 0) > 0)
            let ssim = try #require(run["ssim"] as? [String: Any])
            #expect(number(ssim["files"]) == 2)
            for key in ["mean", "min"] {
                let value = try #require(number(ssim[key]), "SSIM \(key) is null")
                #expect((0...1).contains(value), "SSIM \(key) \(value)")
            }
            #expect((number(ssim["min"]) ?? 0) > 0.8, "thumbd's thumbnail is far from the reference")
        }

        // Peers: measured with sane figures, or reported as missing; never silently absent.
        for key in ["thumbd_cli", "vips", "pillow"] {
            let peer = try #require(json[key] as? [String: Any])
            if peer["installed"] as? Bool == true {
                let figure = (peer["all_cores"] ?? peer["one_core"]) as? [String: Any]
                #expect((number(figure?["images_per_second"]) ?? 0) > 0, "\(key) images/s")
            } else {
                #expect((peer["note"] as? String)?.isEmpty == false, "\(key) neither measured nor explained")
            }
            if let ssim = peer["ssim"] as? [String: Any], let mean = number(ssim["mean"]) {
                #expect((0...1).contains(mean), "\(key) SSIM \(mean)")
            }
        }
        let cli = try #require(json["thumbd_cli"] as? [String: Any])
        #expect(cli["installed"] as? Bool == true, "the bench could not run the thumbd beside it")

        let floor = try #require(json["floor"] as? [String: Any])
        let inProcess = try #require(floor["in_process"] as? [String: Any])
        #expect((number(inProcess["images_per_second"]) ?? 0) > 0)
        let ratios = try #require(json["ratios"] as? [[String: Any]])
        #expect(ratios.contains { $0["name"] as? String == "in-process floor / thumbd, JPEG only" && number($0["value"]) != nil })
    }
}
