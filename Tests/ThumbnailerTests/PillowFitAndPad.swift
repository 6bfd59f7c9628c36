import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import Testing

/// Pillow's `ImageOps.fit` and `ImageOps.pad` (Lanczos, centred, after `ImageOps.exif_transpose`)
/// as the independent reference for the cover and pad fits. One python3 run does a whole batch, so
/// decoding the photos at full size in Python is paid once per test, not once per shape. Found as
/// `python3` on PATH; the tests that need it are skipped when it has no Pillow.
enum PillowFitAndPad {
    static let ready: Bool = (try? run(["-c", "import PIL.ImageOps"])) != nil
    static let missing = "python3 with Pillow is not installed (apt-get install python3-pil): the Pillow reference tests cannot run"

    /// What Pillow is asked for: `fit` (cover) or `pad` of `source` at `width` x `height`.
    struct Job: Codable {
        var source: String
        var operation: String
        var width: Int, height: Int
        var color: [Int] = [0, 0, 0]
        var output: String = ""
    }

    /// Pillow's result, and for `pad` where Pillow put the photo (the fitted size and the offset
    /// its `pad` computes, with Python's rounding).
    struct Result {
        var pixels: PixelBuffer
        var photo: PixelBox
    }

    static let script = """
    import json, sys
    from PIL import Image, ImageOps
    jobs = json.load(open(sys.argv[1]))
    opened = None
    for job in jobs:
        if opened != job["source"]:
            opened = job["source"]
            image = ImageOps.exif_transpose(Image.open(opened)).convert("RGB")
        size = (job["width"], job["height"])
        if job["operation"] == "fit":
            out = ImageOps.fit(image, size, Image.LANCZOS, centering=(0.5, 0.5))
            placed = (0, 0) + size
        else:
            out = ImageOps.pad(image, size, Image.LANCZOS, color=tuple(job["color"]), centering=(0.5, 0.5))
            fitted = ImageOps.contain(image, size).size
            placed = (round((size[0] - fitted[0]) * 0.5), round((size[1] - fitted[1]) * 0.5)) + fitted
        out.save(job["output"], "PNG")
        print(*placed)
    """

    /// Runs every job in one python3 process; the results come back in the jobs' order.
    static func results(of jobs: [Job]) throws -> [Result] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-pillow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var jobs = jobs
        for index in jobs.indices { jobs[index].output = folder.appendingPathComponent("\(index).png").path }
        let jobFile = folder.appendingPathComponent("jobs.json")
        try JSONEncoder().encode(jobs).write(to: jobFile)
        let printed = try run(["-c", script, jobFile.path]).split(separator: "\n")
        try #require(printed.count == jobs.count, "Pillow printed \(printed.count) placements for \(jobs.count) jobs")
        return try zip(jobs, printed).map { job, line in
            let numbers = line.split(separator: " ").compactMap { Int($0) }
            try #require(numbers.count == 4, "Pillow printed \"\(line)\"")
            let pixels = try ImageCodecs.decode([UInt8](Data(contentsOf: URL(fileURLWithPath: job.output)))).pixels
            return Result(pixels: pixels, photo: PixelBox(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
        }
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// python3 with `arguments`; its standard output, or a `Failure` with its standard error.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("python3", arguments, timeoutSeconds: 600)
        guard result.status == 0 else { throw Failure(description: "python3 exited \(result.status): \(result.stderrText)") }
        return result.stdoutText
    }
}
