import ChildProcess
import CropScenes
import Foundation
import ImageCodecs
import ImageCore

/// One way of cropping, measured over the scenes: where it cut each one and how long a thumbnail took.
struct BenchCropMethod: Sendable {
    var name: String
    /// Per scene, in scene order; nil where the tool failed on that scene.
    var windows: [SceneRect?]
    var millisecondsPerThumbnail: Double?
    /// The method whose time this one's is compared with (the same tool's centre crop).
    var baseline: String?
    /// Thumbnails that came out another size than the shape asked for (a peer that does not crop
    /// to the exact box): their windows are still located, at their own shape, but the report says so.
    var offShape: [String] = []
}

/// The peers, run as their users run them, over the scene files.
enum BenchCropPeers {
    /// `vipsthumbnail -s WxH --smartcrop MODE` over every file in one process per round (with a crop,
    /// vips fills the box: the output is exactly WxH); the time per thumbnail is the median round's
    /// wall clock over the file count.
    static func vips(_ mode: String, scenes: BenchCropScenes, shape: BenchShape, rounds: Int, folder: String) throws -> BenchCropMethod {
        let output = "\(folder)/%s.vips-\(mode).jpg[Q=82]"
        var times: [Double] = []
        for _ in 0..<max(1, rounds) {
            let result = try ChildProcess.run("vipsthumbnail", ["-s", shape.description, "--smartcrop", mode, "-o", output] + scenes.paths,
                                              timeoutSeconds: BenchPeers.timeoutSeconds)
            guard result.status == 0 else { throw ValidationErrorMessage("vipsthumbnail failed: \(result.stderrText)") }
            times.append(result.wallSeconds)
        }
        let located = zip(scenes.scenes, scenes.paths).map { scene, path in
            locate("\(folder)/\(stem(path)).vips-\(mode).jpg", in: scene, shape: shape)
        }
        let median = BenchStats.median(times).map { $0 * 1000 / Double(scenes.paths.count) }
        return BenchCropMethod(name: "vips \(mode)", windows: located.map(\.window), millisecondsPerThumbnail: median,
                               baseline: mode == "centre" ? nil : "vips centre", offShape: located.compactMap(\.offShape))
    }

    /// thumbor's centre and smart crops (Scripts/thumbor_crop.py), or why they cannot be measured.
    static func thumbor(python: String, scenes: BenchCropScenes, shape: BenchShape, rounds: Int, folder: String) -> Result<[BenchCropMethod], ValidationErrorMessage> {
        let check = try? ChildProcess.run(python, ["-c", "import thumbor, cv2, PIL"], timeoutSeconds: 120)
        guard let check, check.status == 0 else {
            let reason = check.map { $0.stderrText.split(separator: "\n").last.map(String.init) ?? "import failed" } ?? "\(python) did not run"
            return .failure(ValidationErrorMessage("not installed (\(reason); pip install thumbor opencv-python-headless, or --python)"))
        }
        do {
            let script = try BenchScript.thumborCrop.write(into: folder)
            let result = try ChildProcess.run(python, [script, "\(shape.width)", "\(shape.height)", folder, "\(max(1, rounds))"] + scenes.paths,
                                              timeoutSeconds: BenchPeers.timeoutSeconds * 4)
            guard result.status == 0 else {
                return .failure(ValidationErrorMessage("failed: \(result.stderrText.split(separator: "\n").suffix(3).joined(separator: " "))"))
            }
            // mode -> round -> milliseconds summed over the files.
            var totals: [String: [Int: Double]] = [:]
            for line in result.stdoutText.split(separator: "\n") {
                let fields = line.split(separator: "\t")
                guard fields.count == 4, let round = Int(fields[1]), let ms = Double(fields[2]) else { continue }
                totals[String(fields[0]), default: [:]][round, default: 0] += ms
            }
            return .success(["center", "smart"].map { mode in
                let located = zip(scenes.scenes, scenes.paths).map { scene, path in
                    locate("\(folder)/\(stem(path)).\(mode).jpg", in: scene, shape: shape)
                }
                let perRound = (totals[mode] ?? [:]).values.map { $0 / Double(scenes.paths.count) }
                return BenchCropMethod(name: "thumbor \(mode)", windows: located.map(\.window), millisecondsPerThumbnail: BenchStats.median(perRound),
                                       baseline: mode == "center" ? nil : "thumbor center", offShape: located.compactMap(\.offShape))
            })
        } catch {
            return .failure(ValidationErrorMessage("failed: \(error)"))
        }
    }

    /// Where a peer's thumbnail came from, or nil when there is none; and, when it is not the
    /// shape asked for, its scene and size (`busy-plain-3x2-0: 240x321`).
    static func locate(_ path: String, in scene: CropScene, shape: BenchShape) -> (window: SceneRect?, offShape: String?) {
        guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))),
              let thumbnail = try? ImageCodecs.decode(bytes).pixels else { return (nil, nil) }
        let size = BenchShape(width: thumbnail.width, height: thumbnail.height)
        return (CropLocator.window(of: thumbnail, in: scene.image), size == shape ? nil : "\(scene.fileStem): \(size)")
    }

    static func stem(_ path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }
}
