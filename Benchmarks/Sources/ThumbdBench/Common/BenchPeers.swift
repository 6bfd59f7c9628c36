import ChildProcess
import Foundation

/// A batch command run as a child process: vipsthumbnail, thumbd's own CLI, pinned or not.
struct BenchChildCommand: Sendable {
    var program: String
    var arguments: [String]
    var pinned: Bool
    var concurrency: Int

    /// Peak RSS is taken from this warm-up run, made while the bench process is still small (a
    /// child's ru_maxrss cannot read below its parent's RSS, see `BenchStats.shrinkAndResetPeakRSS`).
    struct WarmUp: Sendable {
        var result: ChildProcessResult
        var spawnerRSSBytes: Int?
    }

    func warmUp() throws -> WarmUp {
        let spawner = BenchStats.shrinkAndResetPeakRSS()
        let result = try ChildProcess.run(program, arguments, timeoutSeconds: BenchPeers.timeoutSeconds)
        return WarmUp(result: result, spawnerRSSBytes: spawner)
    }

    func round() throws -> BenchRound {
        let cpuBefore = BenchStats.reapedChildrenCPUSeconds()
        let result = try ChildProcess.run(program, arguments, timeoutSeconds: BenchPeers.timeoutSeconds)
        guard !result.timedOut else { throw ValidationErrorMessage("\(program) timed out") }
        return BenchRound(seconds: result.wallSeconds, cpuSeconds: BenchStats.reapedChildrenCPUSeconds() - cpuBefore)
    }

    func throughput(files: [BenchFile], rounds: [BenchRound], warmUp: WarmUp) -> BenchResults.Throughput {
        var t = BenchResults.Throughput(images: files.count, megapixels: BenchCorpus.megapixels(files), rounds: rounds,
                                        concurrency: concurrency)
        t.peakRSSBytes = warmUp.result.maxRSSBytes
        t.spawnerRSSBytes = warmUp.spawnerRSSBytes
        t.pinnedToOneCore = pinned
        return t
    }
}

/// The programs thumbd is measured against, each run as a child process over the same files,
/// plus thumbd's own CLI run the same way (process start-up and file writes included, like the peers).
struct BenchPeers: Sendable {
    /// The box: the bench's square, or `--shape`'s WxH (each with its own scratch folders).
    var shape: BenchShape
    var quality: Int
    var scratch: BenchScratch
    /// Links to the corpus files, in corpus order (see `BenchScratch.links`).
    var inputs: [String]

    static let installHint = "not installed (apt-get install libvips-tools / libjpeg-turbo-progs; pip install pillow)"
    static var tasksetAvailable: Bool { ChildProcess.isInstalled("taskset") }

    /// Generous: a stuck peer must not hang the benchmark.
    static let timeoutSeconds = 600.0

    // MARK: - Versions

    static func vipsVersion() -> String? {
        guard ChildProcess.isInstalled("vipsthumbnail"),
              let result = try? ChildProcess.run("vipsthumbnail", ["--version"], timeoutSeconds: 10), result.status == 0
        else { return nil }
        let text = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        return text.hasPrefix("vips-") ? String(text.dropFirst(5)) : text
    }

    static func djpegVersion() -> String? {
        guard ChildProcess.isInstalled("djpeg"),
              let result = try? ChildProcess.run("djpeg", ["-version"], timeoutSeconds: 10) else { return nil }
        let line = (result.stderrText + result.stdoutText).split(separator: "\n").first.map(String.init)
        return line?.trimmingCharacters(in: .whitespaces)
    }

    /// The command unrestricted, then pinned to core 0 with taskset (when taskset exists).
    static func unrestrictedAndPinned(_ program: String, all: [String], one: [String], workers: Int) -> [BenchChildCommand] {
        var commands = [BenchChildCommand(program: program, arguments: all, pinned: false, concurrency: workers)]
        if tasksetAvailable {
            commands.append(BenchChildCommand(program: "taskset", arguments: ["-c", "0", program] + one, pinned: true, concurrency: 1))
        }
        return commands
    }

    // MARK: - vipsthumbnail

    /// With a crop, vipsthumbnail fills the box: the output is exactly WxH, as thumbd's cover is.
    func vipsArguments(outDir: String, suffix: String) -> [String] {
        ["--size", shape.description, "--smartcrop", "centre", "-o", (outDir as NSString).appendingPathComponent("%s" + suffix)] + inputs
    }

    var vipsCommandLine: String { "vipsthumbnail --size \(shape) --smartcrop centre -o DIR/%s.jpg[Q=\(quality)] FILES..." }

    /// A scratch folder of this box's own, so the square's and the shape's outputs never mix.
    func folder(_ name: String) throws -> String { try scratch.folder("\(name)-\(shape)") }

    /// One invocation over every file, unrestricted and pinned to core 0; nil when not installed.
    func vipsCommands(workers: Int) throws -> [BenchChildCommand]? {
        guard ChildProcess.isInstalled("vipsthumbnail") else { return nil }
        let arguments = vipsArguments(outDir: try folder("vips-jpeg"), suffix: ".jpg[Q=\(quality)]")
        return Self.unrestrictedAndPinned("vipsthumbnail", all: arguments, one: arguments, workers: workers)
    }

    /// vipsthumbnail goes on after a file it cannot read and names it on stderr.
    func vipsFailures(_ run: ChildProcessResult, files: [BenchFile]) -> [BenchResults.FileError] {
        run.stderrText.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "unable to thumbnail ") else { return nil }
            let path = String(line[range.upperBound...])
            let name = BenchScratch.index(fromOutputName: (path as NSString).lastPathComponent)
                .flatMap { files.indices.contains($0) ? files[$0].name : nil } ?? path
            return BenchResults.FileError(tool: "vipsthumbnail", file: name, code: "peer_failed",
                                          message: "vipsthumbnail: unable to thumbnail (exit status \(run.status))")
        }
    }

    /// Lossless outputs for the SSIM comparison (not timed). Returns the folder.
    func vipsPNG() -> String? {
        guard ChildProcess.isInstalled("vipsthumbnail"), let out = try? folder("vips-png") else { return nil }
        _ = try? ChildProcess.run("vipsthumbnail", vipsArguments(outDir: out, suffix: ".png"), timeoutSeconds: Self.timeoutSeconds)
        return out
    }

    // MARK: - thumbd's CLI as a child

    func thumbdCommandLine(workers: Int) -> String {
        "thumbd thumbnail --out-dir DIR --size \(shape.cliSize) --gravity center --format jpeg --quality \(quality) --quiet --jobs \(workers) (or 1 under taskset -c 0) FILES..."
    }

    /// `--gravity center` because the CLI's own default is the smart crop, and vipsthumbnail and
    /// the in-process rows crop the centre; `--format jpeg` because vipsthumbnail is asked for JPEG
    /// and the CLI's own default writes a photo with alpha as PNG (a PNG encode is several JPEG ones).
    func thumbdCommands(executable: String, workers: Int) throws -> [BenchChildCommand] {
        let base = ["thumbnail", "--out-dir", try folder("thumbd-cli"), "--size", shape.cliSize, "--gravity", "center",
                    "--format", "jpeg", "--quality", String(quality), "--quiet"]
        return Self.unrestrictedAndPinned(executable, all: base + ["--jobs", String(workers)] + inputs,
                                          one: base + ["--jobs", "1"] + inputs, workers: workers)
    }

    /// One run of the CLI over every file: it warms the page cache, and the files it reports on stderr
    /// (`error: FILE: CODE: reason`) are left out of every measurement. Returns their indices and
    /// errors, or nil when the CLI could not be run.
    func thumbdCheck(executable: String, files: [BenchFile]) -> [(index: Int, error: BenchResults.FileError)]? {
        guard let out = try? folder("thumbd-check"),
              let run = try? ChildProcess.run(executable, ["thumbnail", "--out-dir", out, "--size", shape.cliSize,
                                                           "--quality", String(quality), "--quiet"] + inputs,
                                              timeoutSeconds: Self.timeoutSeconds),
              run.status == 0 || run.status == 1 else { return nil }
        return run.stderrText.split(separator: "\n").compactMap { line -> (Int, BenchResults.FileError)? in
            guard line.hasPrefix("error: ") else { return nil }
            let rest = line.dropFirst("error: ".count)
            guard let index = inputs.firstIndex(where: { rest.hasPrefix($0 + ": ") }) else { return nil }
            let fields = rest.dropFirst(inputs[index].count + 2).split(separator: ":", maxSplits: 1)
            let code = fields.first.map(String.init) ?? "unknown"
            let message = fields.count > 1 ? fields[1].trimmingCharacters(in: .whitespaces) : ""
            return (index, BenchResults.FileError(tool: "thumbd", file: files[index].name, code: code, message: message))
        }
    }

    // MARK: - djpeg, the floor

    static let djpegCommandLine = "djpeg -scale 1/8 -outfile /dev/null FILE (one process per JPEG)"

    /// `djpeg -scale 1/8` once per JPEG file (output thrown away): the time to do nothing but decode
    /// at the smallest size, process start-up included.
    static func djpegRound(_ jpegs: [BenchFile]) throws -> BenchRound {
        let start = BenchStats.now()
        let ms = try jpegs.map { file in
            let run = try ChildProcess.run("djpeg", ["-scale", "1/8", "-outfile", "/dev/null", file.path],
                                           timeoutSeconds: timeoutSeconds)
            return run.wallSeconds * 1000
        }
        return BenchRound(seconds: BenchStats.now() - start, perImageMs: ms)
    }
}
