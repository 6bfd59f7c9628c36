import ArgumentParser
import ChildProcess
import ConsoleText
import Foundation
import ImageCodecs
import ImageCore
import ImageQuality

/// `thumbd-bench sizes`: a shop's several sizes of each photo, made by one `thumbd thumbnail` run
/// with every `--size` (one decode a photo), against one thumbd run per size and one vipsthumbnail
/// run per size, in the same interleaved rounds; and each shared size's pixels against its
/// single-size thumbnail's.
struct BenchSizesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sizes",
        abstract: "Measure several sizes of each photo from one decode against one run per size (thumbd, vipsthumbnail).",
        discussion: HelpText.reflowed("""
            Each round runs, over every photo of the folder, as child processes on all cores (and,
            with taskset, pinned to core 0, thumbd with --jobs 1):
            - shared: thumbd thumbnail FILES --out-dir DIR --size A --size B ... (one decode a photo);
            - thumbd per size: thumbd thumbnail FILES --out-dir DIR --size N, once for each size;
            - vipsthumbnail per size: vipsthumbnail --size NxN --smartcrop centre -o DIR/%s.jpg[Q=82] FILES,
              once for each size.
            All crop the centre square (thumbd with --gravity center) and write JPEG at quality 82;
            --gravity smart measures thumbd's own default instead (vipsthumbnail stays on centre:
            its attention crop is another, slower method), where a smaller size shares the decode
            only when its own decode would give the same pixels.
            Wall and CPU seconds are summed over a contender's runs; the ratios are the others' wall
            time over the shared run's, one per round, printed as their range.

            QUALITY: an untimed pass writes PNG both ways; each shared size is compared with the
            single-size thumbnail by SSIM (luma); the minimum and mean are printed.
            """)
    )

    @Option(help: "Folder of photos (JPEG, PNG, WebP).") var corpus = "../shared/corpora/photos"
    @Option(name: .customLong("size"), help: "A square size; give it several times (default 160, 320, 640, 1280).")
    var sizes: [Int] = []
    @Option(help: "thumbd's crop: center (as vipsthumbnail's centre) or smart (thumbd's default).")
    var gravity = "center"
    @Option(help: "Timed rounds, after one warm-up.") var rounds = 3
    @Option(help: "Scratch folder (emptied first).") var scratch = "/tmp/thumbd-bench-sizes"

    func validate() throws {
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1.") }
        guard ["center", "smart"].contains(gravity) else { throw ValidationError("--gravity must be center or smart.") }
        guard sizes.allSatisfy({ (1...4096).contains($0) }) else { throw ValidationError("each --size must be 1 to 4096.") }
    }

    func run() async throws {
        let thumbd = try ThumbdExecutable.required()
        let sizes = self.sizes.isEmpty ? [160, 320, 640, 1280] : self.sizes
        let files = try photos()
        guard !files.isEmpty else { throw ValidationErrorMessage("no JPEG, PNG or WebP files in \(corpus)") }
        try? FileManager.default.removeItem(atPath: scratch)
        let plan = BenchSizesPlan(thumbd: thumbd, files: files, sizes: sizes, scratch: scratch, gravity: gravity)
        print("thumbd-bench sizes: \(files.count) photos of \(corpus), sizes \(sizes.map(String.init).joined(separator: ", ")), thumbd --gravity \(gravity), \(rounds) rounds")
        var pinnings = [false]
        if BenchPeers.tasksetAvailable { pinnings.append(true) } else { print("taskset not found: no one-core figures") }
        for pinned in pinnings {
            let contenders = try plan.contenders(pinned: pinned)
            print(pinned ? "\nOne core (taskset -c 0):" : "\nAll \(ProcessInfo.processInfo.activeProcessorCount) cores:")
            for contender in contenders { _ = try contender.time() }
            var rows = [[BenchRound]](repeating: [], count: contenders.count)
            for _ in 0..<rounds {
                for (index, contender) in contenders.enumerated() { rows[index].append(try contender.time()) }
            }
            for (index, contender) in contenders.enumerated() {
                let wall = rows[index].map(\.seconds), cpu = rows[index].compactMap(\.cpuSeconds)
                let perImage = (BenchStats.median(cpu) ?? 0) * 1000 / Double(files.count * sizes.count)
                print(String(format: "  %-31@ wall %5.2f-%5.2f s   CPU %5.1f ms a thumbnail", contender.name as NSString,
                             wall.min() ?? 0, wall.max() ?? 0, perImage))
            }
            for index in contenders.indices.dropFirst() {
                let ratios = zip(rows[index], rows[0]).map { $0.seconds / $1.seconds }
                print(String(format: "  shared run is %.2f-%.2fx as fast as %@", ratios.min() ?? 0, ratios.max() ?? 0, contenders[index].name))
            }
        }
        try reportQuality(plan)
    }

    private func photos() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus).sorted()
        return names.filter { ["jpg", "jpeg", "png", "webp"].contains(($0 as NSString).pathExtension.lowercased()) }
            .map { (corpus as NSString).appendingPathComponent($0) }
    }

    private func reportQuality(_ plan: BenchSizesPlan) throws {
        let scores = try plan.sharedAgainstSingle()
        guard let worst = scores.min(by: { $0.ssim < $1.ssim }) else { return }
        let mean = scores.map(\.ssim).reduce(0, +) / Double(scores.count)
        print(String(format: "\nQuality, shared against single-size (PNG, SSIM luma, %d thumbnails): min %.4f (%@ at %d), mean %.4f",
                     scores.count, worst.ssim, worst.file as NSString, worst.size, mean))
    }
}

/// The commands of a `sizes` run and where they write.
struct BenchSizesPlan: Sendable {
    var thumbd: String
    var files: [String]
    var sizes: [Int]
    var scratch: String
    /// thumbd's `--gravity`.
    var gravity: String

    /// Runs of one contender, timed together: their wall and CPU seconds summed.
    struct Contender: Sendable {
        var name: String
        var commands: [(program: String, arguments: [String])]

        func time() throws -> BenchRound {
            var wall = 0.0
            let cpuBefore = BenchStats.reapedChildrenCPUSeconds()
            for command in commands {
                let result = try ChildProcess.run(command.program, command.arguments, timeoutSeconds: BenchPeers.timeoutSeconds)
                guard result.status == 0, !result.timedOut else {
                    throw ValidationErrorMessage("\(name): \(command.program) exited \(result.status): \(result.stderrText.prefix(400))")
                }
                wall += result.wallSeconds
            }
            return BenchRound(seconds: wall, cpuSeconds: BenchStats.reapedChildrenCPUSeconds() - cpuBefore)
        }
    }

    func folder(_ name: String) throws -> String {
        let path = (scratch as NSString).appendingPathComponent(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func thumbdArguments(sizes: [Int], outDir: String, format: String = "jpeg", jobs: Int? = nil) -> [String] {
        ["thumbnail"] + files + ["--out-dir", outDir, "--gravity", gravity, "--format", format, "-q"]
            + sizes.flatMap { ["--size", String($0)] } + (jobs.map { ["--jobs", String($0)] } ?? [])
    }

    func contenders(pinned: Bool) throws -> [Contender] {
        let tag = pinned ? "pinned" : "all"
        func wrapped(_ program: String, _ arguments: [String]) -> (program: String, arguments: [String]) {
            pinned ? ("taskset", ["-c", "0", program] + arguments) : (program, arguments)
        }
        let jobs = pinned ? 1 : nil
        var contenders = [Contender]()
        let shared = wrapped(thumbd, thumbdArguments(sizes: sizes, outDir: try folder("shared-\(tag)"), jobs: jobs))
        contenders.append(Contender(name: "thumbd, all sizes at once", commands: [shared]))
        let single = try sizes.map { size in
            wrapped(thumbd, thumbdArguments(sizes: [size], outDir: try folder("single-\(tag)-\(size)"), jobs: jobs))
        }
        contenders.append(Contender(name: "thumbd, one run a size", commands: single))
        if ChildProcess.isInstalled("vipsthumbnail") {
            let vips = try sizes.map { size in
                let out = (try folder("vips-\(tag)-\(size)") as NSString).appendingPathComponent("%s.jpg[Q=82]")
                return wrapped("vipsthumbnail", ["--size", "\(size)x\(size)", "--smartcrop", "centre", "-o", out] + files)
            }
            contenders.append(Contender(name: "vipsthumbnail, one run a size", commands: vips))
        } else {
            print("  vipsthumbnail \(BenchPeers.installHint)")
        }
        return contenders
    }

    /// Every size of every photo made both ways as PNG (untimed), then compared.
    func sharedAgainstSingle() throws -> [(file: String, size: Int, ssim: Double)] {
        let shared = try folder("quality-shared")
        _ = try ChildProcess.run(thumbd, thumbdArguments(sizes: sizes, outDir: shared, format: "png"), timeoutSeconds: BenchPeers.timeoutSeconds)
        var scores = [(file: String, size: Int, ssim: Double)]()
        for size in sizes {
            let single = try folder("quality-single-\(size)")
            _ = try ChildProcess.run(thumbd, thumbdArguments(sizes: [size], outDir: single, format: "png"), timeoutSeconds: BenchPeers.timeoutSeconds)
            for file in files {
                let base = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
                guard let a = try? Data(contentsOf: URL(fileURLWithPath: (shared as NSString).appendingPathComponent("\(base)-\(size).png"))),
                      let b = try? Data(contentsOf: URL(fileURLWithPath: (single as NSString).appendingPathComponent("\(base).png"))),
                      let sharedPixels = try? ImageCodecs.decode([UInt8](a)).pixels,
                      let singlePixels = try? ImageCodecs.decode([UInt8](b)).pixels,
                      sharedPixels.width == singlePixels.width, sharedPixels.height == singlePixels.height
                else {
                    throw ValidationErrorMessage("\(base) at \(size): the shared and single-size PNGs are missing or differ in size")
                }
                scores.append((base, size, SSIM.compare(sharedPixels, singlePixels)))
            }
        }
        return scores
    }
}
