import ArgumentParser
import ByteUnits
import ConsoleText
import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import TestSupport
import ThumbPipeline
import Thumbnailer
import UploadPreparation

/// `thumbd-bench prepare`: the upload-preparation figures. Five 12-megapixel phone photos against
/// the 1.5 s target, and the budget search over every corpus photo at several budgets against
/// plain bisection of the quality with the same encoder.
struct BenchPrepareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prepare",
        abstract: "Measure upload preparation: five 12 MP photos, encodes per image and budget use.",
        discussion: HelpText.reflowed("""
            1. Five photos of --corpus enlarged to 12 MP (4000 px on the long side), stored turned with
               EXIF orientations, GPS, XMP and a comment, as phones write them, are prepared as one batch
               (default rules: 300 KiB, 1200 px, JPEG) --rounds times on a pool of one thread per core.
               Target: under 1.5 s on 2 cores.
            2. Every photo of --corpus is prepared alone at each --budgets value. Reported: encodes per
               image, and for the images that had to be compressed (the ceiling quality overflowed) the
               share that used at least 85% of the budget; targets: at most 4 encodes per image on
               average, and every compressed image at 85% or more. Beside it, plain bisection of the
               quality (50...92, the largest that fits) on the same pixels and encoder.
            """)
    )

    @Option(help: "Folder of photos.") var corpus = "../shared/corpora/photos"
    @Option(help: "Timed rounds of the five-photo batch.") var rounds = 5
    @Option(help: "Budgets for the sweep, comma-separated (KiB).") var budgets = "300,150,75,40"
    @Flag(help: "Print JSON instead of text.") var json = false
    @Option(name: .customLong("write-photos"), help: "Also write the five 12 MP photos to this folder (to time `thumbd prepare` itself, e.g. with hyperfine).")
    var writePhotos: String?

    struct BatchFigures: Codable {
        var photos: [String]
        var megapixels: [Double]
        var originalBytes: [Int]
        var secondsPerRound: [Double]
        var medianSeconds: Double
        var bestSeconds: Double
        var encodesPerImage: Double
        var outputBytes: [Int]
        var threads: Int
    }

    struct SweepRow: Codable {
        var budgetKiB: Int
        var images: Int
        var compressed: Int
        var shrunk: Int
        var overBudget: Int
        var encodesPerImage: Double
        var encodesPerCompressedImage: Double
        var compressedAtLeast85Percent: Int
        var lowestUseOfBudget: Double?
        var meanUseOfBudget: Double?
        var bisectionEncodesPerImage: Double
        var bisectionMeanUseOfBudget: Double?
    }

    struct Results: Codable {
        var batch: BatchFigures
        var sweep: [SweepRow]
    }

    func run() async throws {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).sorted()
        let images = names.filter { [".jpg", ".png", ".webp"].contains(where: $0.lowercased().hasSuffix) }
        guard images.count >= 5 else { throw ValidationError("--corpus \(corpus) needs at least 5 photos") }
        let budgetList = budgets.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !budgetList.isEmpty, budgetList.allSatisfy({ $0 > 0 }) else { throw ValidationError("--budgets must be KiB values like 300,150") }

        let pool = CPUPool(niceness: 0)
        defer { pool.shutdown() }
        let priority = PriorityCell(.interactive)
        let run: UploadPreparer.Runner = { work in try await pool.run(priority: priority, work) }

        let batch = try await measureBatch(images.filter { $0.lowercased().hasSuffix(".jpg") }, run: run, threads: pool.threadCount)
        var sweep: [SweepRow] = []
        for kib in budgetList {
            sweep.append(try await measureSweep(images, budgetKiB: kib, run: run))
        }
        let results = Results(batch: batch, sweep: sweep)
        if json { try printBenchJSON(results) } else { print(report(results)) }
    }

    private func measureBatch(_ jpegs: [String], run: @escaping UploadPreparer.Runner, threads: Int) async throws -> BatchFigures {
        let preferred = ["lomiri_life_by_Aitzol_Berasategi.jpg", "lomiri_Wine_by_Jakkub_Mede.jpg", "lomiri_analogpattern_by_Peter_Nerlich.jpg",
                         "mate_LadyBird.jpg", "jxl_flower_q85_420.jpg"]
        let chosen = Array((preferred.filter(jpegs.contains) + jpegs.filter { !preferred.contains($0) }).prefix(5))
        let orientations: [Orientation] = [.right, .up, .left, .down, .right]
        var sources: [SourceImage] = []
        var megapixels: [Double] = []
        for (index, name) in chosen.enumerated() {
            let decoded = try ImageCodecs.decode(try TestPaths.bytes(URL(fileURLWithPath: corpus).appendingPathComponent(name)))
            let upright = PhonePhoto.twelveMegapixel(decoded.pixels)
            megapixels.append(Double(upright.width * upright.height) / 1_000_000)
            sources.append(SourceImage(name: name, bytes: try PhonePhoto.jpeg(upright: upright, orientation: orientations[index])))
        }
        if let writePhotos {
            try FileManager.default.createDirectory(atPath: writePhotos, withIntermediateDirectories: true)
            for (index, source) in sources.enumerated() {
                try Data(source.bytes).write(to: URL(fileURLWithPath: writePhotos).appendingPathComponent("phone-\(index + 1).jpg"))
            }
        }
        var seconds: [Double] = []
        var last: [PreparedImage] = []
        _ = try await UploadPreparer.prepare(sources, settings: UploadSettings(), run: run)  // warm-up
        for _ in 0..<max(1, rounds) {
            let start = ContinuousClock.now
            last = try await UploadPreparer.prepare(sources, settings: UploadSettings(), run: run)
            seconds.append((ContinuousClock.now - start).secondsValue)
        }
        let sorted = seconds.sorted()
        return BatchFigures(photos: chosen, megapixels: megapixels, originalBytes: sources.map(\.bytes.count),
                            secondsPerRound: seconds, medianSeconds: sorted[sorted.count / 2], bestSeconds: sorted[0],
                            encodesPerImage: Double(last.map(\.steps.count).reduce(0, +)) / Double(last.count),
                            outputBytes: last.map(\.bytes.count), threads: threads)
    }

    private func measureSweep(_ names: [String], budgetKiB: Int, run: @escaping UploadPreparer.Runner) async throws -> SweepRow {
        var settings = UploadSettings()
        settings.budgetBytes = budgetKiB * 1024
        let budget = Double(settings.budgetBytes)
        var encodes = 0, compressedEncodes = 0, compressed = 0, shrunk = 0, over = 0, atLeast85 = 0
        var uses: [Double] = []
        var bisectionEncodes = 0
        var bisectionUses: [Double] = []
        for name in names {
            let bytes = try TestPaths.bytes(URL(fileURLWithPath: corpus).appendingPathComponent(name))
            let image = try await UploadPreparer.prepare([SourceImage(name: name, bytes: bytes)], settings: settings, run: run)[0]
            encodes += image.steps.count
            if image.bytes.count > settings.budgetBytes { over += 1 }
            if image.steps.count > 1 {
                compressed += 1
                compressedEncodes += image.steps.count
                let use = Double(image.bytes.count) / budget
                uses.append(use)
                if use >= 0.85 { atLeast85 += 1 }
                if let first = image.steps.first, image.width < first.width { shrunk += 1 }
                // The same pixels through plain bisection, for comparison (compressed images only:
                // both stop at one encode when the ceiling fits).
                let info = try ImageCodecs.readInfo(bytes)
                var pixels = try Thumbnailer.render(from: bytes, UploadPreparer.renderRequest(for: info, settings: settings)).pixels
                if pixels.hasAlpha { pixels = pixels.flattened() }
                let (tries, size) = try Self.bisect(pixels, budget: settings.budgetBytes, floor: settings.qualityFloor, ceiling: settings.qualityCeiling)
                bisectionEncodes += tries
                if let size { bisectionUses.append(Double(size) / budget) }
            } else {
                bisectionEncodes += image.steps.count
            }
        }
        let count = Double(names.count)
        return SweepRow(budgetKiB: budgetKiB, images: names.count, compressed: compressed, shrunk: shrunk, overBudget: over,
                        encodesPerImage: Double(encodes) / count,
                        encodesPerCompressedImage: compressed > 0 ? Double(compressedEncodes) / Double(compressed) : 0,
                        compressedAtLeast85Percent: atLeast85, lowestUseOfBudget: uses.min(),
                        meanUseOfBudget: uses.isEmpty ? nil : uses.reduce(0, +) / Double(uses.count),
                        bisectionEncodesPerImage: Double(bisectionEncodes) / count,
                        bisectionMeanUseOfBudget: bisectionUses.isEmpty ? nil : bisectionUses.reduce(0, +) / Double(bisectionUses.count))
    }

    /// The ceiling, then bisection for the largest quality that fits; nil size when the floor overflows.
    static func bisect(_ pixels: PixelBuffer, budget: Int, floor: Int, ceiling: Int) throws -> (encodes: Int, size: Int?) {
        var encodes = 1
        if try ImageCodecs.encode(pixels, .jpeg(quality: ceiling)).count <= budget { return (encodes, nil) }
        var low = floor - 1, high = ceiling, best: Int?
        while high - low > 1 {
            let middle = (low + high) / 2
            let size = try ImageCodecs.encode(pixels, .jpeg(quality: middle)).count
            encodes += 1
            if size <= budget { low = middle; best = size } else { high = middle }
        }
        return (encodes, best)
    }

    private func report(_ r: Results) -> String {
        var out: [String] = []
        let b = r.batch
        out.append("Five 12 MP phone photos (\(b.photos.joined(separator: ", ")); \(b.megapixels.map { String(format: "%.1f", $0) }.joined(separator: "/")) MP, "
                   + "\(ByteSize.format(b.originalBytes.reduce(0, +))) in all), default rules, \(b.threads) threads:")
        out.append("  median \(String(format: "%.3f", b.medianSeconds)) s, best \(String(format: "%.3f", b.bestSeconds)) s over \(b.secondsPerRound.count) rounds "
                   + "(target < 1.5 s: \(b.medianSeconds < 1.5 ? "met" : "NOT met")); \(String(format: "%.1f", b.encodesPerImage)) encodes/image; "
                   + "outputs \(b.outputBytes.map { ByteSize.format($0) }.joined(separator: ", "))")
        out.append("")
        out.append("Budget search over \(r.sweep.first?.images ?? 0) corpus photos (1200 px, JPEG):")
        func percent(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }
        func two(_ value: Double) -> String { String(format: "%.2f", value) }
        let rows: [[String]] = r.sweep.map { s in
            let counts: [String] = ["\(s.budgetKiB) KiB", String(s.compressed), String(s.shrunk), String(s.overBudget)]
            let search: [String] = [two(s.encodesPerImage), two(s.encodesPerCompressedImage), "\(s.compressedAtLeast85Percent)/\(s.compressed)",
                                    percent(s.lowestUseOfBudget), percent(s.meanUseOfBudget)]
            let bisection: [String] = [two(s.bisectionEncodesPerImage), percent(s.bisectionMeanUseOfBudget)]
            return counts + search + bisection
        }
        out.append(TextTable.render(["budget", "compressed", "shrunk", "over", "encodes/img", "per compressed", ">=85%", "lowest use", "mean use",
                                     "bisection enc/img", "bisection use"], rows))
        let images = r.sweep.reduce(0) { $0 + $1.images }
        let encodes = r.sweep.reduce(0.0) { $0 + $1.encodesPerImage * Double($1.images) }
        let compressed = r.sweep.reduce(0) { $0 + $1.compressed }
        let close = r.sweep.reduce(0) { $0 + $1.compressedAtLeast85Percent }
        let over = r.sweep.reduce(0) { $0 + $1.overBudget }
        out.append("  all budgets: \(two(encodes / Double(max(1, images)))) encodes/image (target <= 4); "
                   + "\(close)/\(compressed) compressed images at >= 85% of their budget; \(over) over budget")
        return out.joined(separator: "\n")
    }
}
