import ChildProcess
import ConsoleText
import CropScenes
import Foundation
import Thumbnailer

/// What `thumbd-bench crop` prints.
enum BenchCropReport {
    static func tally(_ method: BenchCropMethod, scenes: [CropScene]) -> KeptShareTally {
        var tally = KeptShareTally()
        for (scene, window) in zip(scenes, method.windows) {
            // A scene the tool failed on counts as nothing kept.
            let kept = window.map { KeptShare(product: scene.product, window: $0) } ?? KeptShare(product: scene.product, window: SceneRect(x: 0, y: 0, width: 0, height: 0))
            tally.add(kept, background: scene.background)
        }
        return tally
    }

    static func table(_ methods: [BenchCropMethod], scenes: [CropScene], shape: BenchShape) -> String {
        let times = Dictionary(methods.map { ($0.name, $0.millisecondsPerThumbnail) }, uniquingKeysWith: { a, _ in a })
        let rows = methods.map { method -> [String] in
            let t = tally(method, scenes: scenes)
            let ratio: String = if let baseline = method.baseline, let own = method.millisecondsPerThumbnail,
                                   let base = times[baseline] ?? nil, base > 0 {
                TextTable.fixed(100 * (own / base - 1), 1) + " %"
            } else { "" }
            return [method.name, percent(t.overall)] + SceneBackground.allCases.map { percent(t.line($0)) }
                + [TextTable.fixed(t.overall.meanShare, 3), TextTable.fixed(method.millisecondsPerThumbnail, 2), ratio]
        }
        return TextTable.render(["method", "whole kept"] + SceneBackground.allCases.map(\.rawValue)
                                + ["mean kept", "ms/thumbnail", "time over own centre"], rows + ceilingRows(scenes, shape: shape), left: [0])
    }

    static func percent(_ line: KeptShareTally.Line) -> String { TextTable.fixed(line.wholePercent, 0) + " %" }

    /// The best any window of the shape can do, as a last row, when that is less than every product
    /// whole: a 16:9 window on a portrait scene is shorter than some products are tall, so no
    /// method can reach 100 % there. A square always holds the product (the generator's rule), and
    /// the table is then as it always was.
    static func ceilingRows(_ scenes: [CropScene], shape: BenchShape) -> [[String]] {
        var tally = KeptShareTally()
        for scene in scenes {
            let window = CoverWindow(sceneWidth: scene.image.width, sceneHeight: scene.image.height,
                                     aspect: Double(shape.width) / Double(shape.height))
            tally.add(window.bestKept(scene.product), background: scene.background)
        }
        guard tally.overall.whole < tally.overall.scenes else { return [] }
        return [["best any \(shape) window can do", percent(tally.overall)] + SceneBackground.allCases.map { percent(tally.line($0)) }
                + [TextTable.fixed(tally.overall.meanShare, 3), "", ""]]
    }

    /// A line per method whose thumbnails were not all of the shape asked for (none when all were).
    static func offShapeNotes(_ methods: [BenchCropMethod], shape: BenchShape) -> [String] {
        methods.filter { !$0.offShape.isEmpty }.map { method in
            "\(method.name): \(method.offShape.count) thumbnail(s) not \(shape) (located at their own shape): "
                + method.offShape.prefix(5).joined(separator: ", ") + (method.offShape.count > 5 ? ", ..." : "")
        }
    }

    static func perScene(_ methods: [BenchCropMethod], scenes: [CropScene]) -> String {
        let rows = scenes.enumerated().map { index, scene -> [String] in
            [scene.name, scene.product.description] + methods.map { method in
                guard index < method.windows.count, let window = method.windows[index] else { return "failed" }
                let kept = KeptShare(product: scene.product, window: window)
                return TextTable.fixed(kept.share, 2) + (kept.whole ? " whole" : "")
            }
        }
        return TextTable.render(["scene", "product box"] + methods.map(\.name), rows, left: [0, 1])
    }

    /// The smart crop's cost where it matters most: on real photos, whose decode dominates.
    static func costOnPhotos(_ photos: [BenchFile], shape: BenchShape, rounds: Int, folder: String) throws -> String {
        let bytes = try photos.map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: $0.path))) }
        let ours = BenchCropThumbd.run(bytes, shape: shape, rounds: rounds)
        var rows: [[String]] = []
        func row(_ name: String, _ ms: Double?, _ base: Double?) -> [String] {
            let ratio = ms.flatMap { m in base.map { TextTable.fixed(100 * (m / $0 - 1), 1) + " %" } } ?? ""
            return [name, TextTable.fixed(ms, 2), ratio]
        }
        rows.append(row("thumbd center", ours.milliseconds[.center], nil))
        rows.append(row("thumbd smart", ours.milliseconds[.smart], ours.milliseconds[.center]))
        if ChildProcess.isInstalled("vipsthumbnail") {
            var vips: [String: Double] = [:]
            for mode in ["centre", "attention"] {
                var times: [Double] = []
                for _ in 0..<max(1, rounds) {
                    let result = try ChildProcess.run("vipsthumbnail", ["-s", shape.description, "--smartcrop", mode,
                                                                        "-o", "\(folder)/%s.\(mode).jpg[Q=82]"] + photos.map(\.path),
                                                      timeoutSeconds: BenchPeers.timeoutSeconds)
                    times.append(result.wallSeconds * 1000 / Double(photos.count))
                }
                vips[mode] = BenchStats.median(times)
            }
            rows.append(row("vips centre", vips["centre"], nil))
            rows.append(row("vips attention", vips["attention"], vips["centre"]))
        }
        return "\ncost on \(photos.count) corpus photos (\(shape.sizeLabel), JPEG q82):\n"
            + TextTable.render(["method", "ms/thumbnail", "time over own centre"], rows, left: [0])
    }
}
