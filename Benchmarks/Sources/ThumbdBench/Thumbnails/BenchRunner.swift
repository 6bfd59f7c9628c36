import ChildProcess
import ConsoleText
import Foundation
import ImageCore

/// Runs the benchmark's steps and gathers their figures.
///
/// The order matters for memory figures: Linux starts a child's peak RSS at the spawning process's
/// RSS (see `BenchStats.shrinkAndResetPeakRSS`), and memory that thumbd's in-process runs leave in
/// malloc's per-thread arenas is not given back. So every child whose peak RSS is reported (the
/// large-JPEG comparison, then one warm-up run of each batch command) runs while this process is
/// still small. Then every contender's timed rounds run interleaved (`BenchSchedule`), and the
/// untimed quality scoring comes last.
struct BenchRunner {
    var corpusDirectory: String
    var size: Int
    var rounds: Int
    var headrooms: [Double]
    var largeDirectory: String?
    /// `--shape WxH`: the same files also made as WxH cover thumbnails (centre, the first headroom)
    /// by thumbd in-process and as the CLI, and by vipsthumbnail, in the same interleaved rounds.
    var shape: BenchShape?
    var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    var results = BenchResults()

    init(corpusDirectory: String, size: Int, shape: BenchShape? = nil, rounds: Int, headrooms: [Double], largeDirectory: String?) {
        self.corpusDirectory = corpusDirectory
        self.size = size
        self.shape = shape
        self.rounds = rounds
        self.headrooms = headrooms
        self.largeDirectory = largeDirectory
    }

    static func progress(_ message: String) {
        let rss = BenchStats.currentRSSBytes().map { " [bench RSS \($0 >> 20) MiB]" } ?? ""
        FileHandle.standardError.write(Data("bench: \(message)\(rss)\n".utf8))
    }

    mutating func run() async throws -> BenchResults {
        let quality = EncodeSettings.defaultQuality
        #if DEBUG
        results.machine.build = "debug"
        results.notes.append("debug build: build with `swift build -c release` for meaningful figures")
        #endif
        results.machine.cores = workers
        results.machine.loadAverageAtStart = BenchStats.loadAverage()
        results.machine.tasksetAvailable = BenchPeers.tasksetAvailable
        results.machine.vipsVersion = BenchPeers.vipsVersion()
        results.machine.djpegVersion = BenchPeers.djpegVersion()
        let executable = ThumbdExecutable.beside()
        results.machine.thumbdExecutable = executable
        results.settings = .init(size: size, rounds: rounds, jpegQuality: quality, headrooms: headrooms, workers: workers)

        let scratch = try BenchScratch()
        defer { scratch.remove() }

        // 1. Peak memory for the large JPEGs, while this process is at its smallest.
        if let largeDirectory {
            Self.progress("peak memory for the large JPEGs in \(largeDirectory)")
            results.large = BenchMemory(size: size, scratch: scratch, executable: executable).measure(directory: largeDirectory)
        } else {
            results.large.note = "no --large folder given and none beside the corpus"
        }

        // 2. The corpus, and the files every tool is measured on: those the CLI makes a thumbnail of.
        var corpus = try BenchCorpus.load(corpusDirectory)
        Self.progress("checking \(corpus.files.count) files")
        let checkLinks = try scratch.links(to: corpus.files, in: "check-inputs")
        let checker = BenchPeers(shape: .square(size), quality: quality, scratch: scratch, inputs: checkLinks)
        if let executable, let failures = checker.thumbdCheck(executable: executable, files: corpus.files) {
            corpus.drop(failures.map { (corpus.files[$0.index], $0.error) })
        } else {
            // No CLI to ask: the in-process first pass decides (at the cost of a larger process below).
            let thumbd = BenchThumbd(files: corpus.files, shape: .square(size), workers: workers)
            corpus.drop(thumbd.firstPass(headroom: headrooms[0]))
        }
        results.errors = corpus.errors
        fillCorpusSummary(corpus)
        let files = corpus.files
        guard !files.isEmpty else {
            results.notes.append("no image in \(corpusDirectory) could be thumbnailed: nothing to measure")
            return results
        }
        let links = try scratch.links(to: files, in: "inputs")
        let peers = BenchPeers(shape: .square(size), quality: quality, scratch: scratch, inputs: links)
        let jpegs = files.filter(\.isJPEG)
        var schedule = BenchSchedule()

        // 3. Child processes over the batch: warm-up runs now, while this process is small, give
        //    their peak RSS; their timed rounds join the schedule.
        var childRuns: [(key: String, command: BenchChildCommand, warmUp: BenchChildCommand.WarmUp, box: BenchShape)] = []
        func addChildren(_ name: String, _ commands: [BenchChildCommand], box: BenchShape = .square(size)) throws {
            for command in commands {
                let key = name + (command.pinned ? ", one core" : ", all cores")
                Self.progress("warm-up: \(key)")
                childRuns.append((key, command, try command.warmUp(), box))
                schedule.add(key) { try command.round() }
            }
        }
        if let executable {
            do {
                try addChildren("thumbd CLI", try peers.thumbdCommands(executable: executable, workers: workers))
                results.thumbdCLI.installed = true
                results.thumbdCLI.command = peers.thumbdCommandLine(workers: workers)
            } catch {
                results.thumbdCLI.note = "could not run: \(error)"
            }
        } else {
            results.thumbdCLI.note = ThumbdExecutable.missing
        }
        do {
            if let commands = try peers.vipsCommands(workers: workers) {
                try addChildren("vipsthumbnail", commands)
                results.vips.installed = true
                results.vips.command = peers.vipsCommandLine
                if let first = childRuns.first(where: { $0.key.hasPrefix("vipsthumbnail") }) {
                    results.errors += peers.vipsFailures(first.warmUp.result, files: files)
                }
            } else {
                results.vips.note = BenchPeers.installHint
            }
        } catch {
            results.vips.note = "could not run: \(error)"
        }
        if let shape {
            // The shape's children warm up here too, while this process is still small.
            let shapePeers = BenchPeers(shape: shape, quality: quality, scratch: scratch, inputs: links)
            results.shape = BenchResults.ShapeRun(width: shape.width, height: shape.height, thumbd: .init(headroom: headrooms[0]))
            if let executable, results.thumbdCLI.installed {
                try addChildren("thumbd CLI \(shape)", try shapePeers.thumbdCommands(executable: executable, workers: workers), box: shape)
                results.shape?.thumbdCLI.installed = true
                results.shape?.thumbdCLI.command = shapePeers.thumbdCommandLine(workers: workers)
            }
            if results.vips.installed, let commands = try shapePeers.vipsCommands(workers: workers) {
                try addChildren("vipsthumbnail \(shape)", commands, box: shape)
                results.shape?.vips.installed = true
                results.shape?.vips.command = shapePeers.vipsCommandLine
            }
        }
        if !BenchPeers.tasksetAvailable {
            let note = "taskset not found (apt-get install util-linux): no one-core figure"
            if results.vips.installed { results.vips.note = note }
            if results.thumbdCLI.installed { results.thumbdCLI.note = note }
        }
        if ChildProcess.isInstalled("djpeg"), !jpegs.isEmpty {
            Self.progress("warm-up: djpeg")
            if (try? BenchPeers.djpegRound(jpegs)) != nil {
                results.floor.djpeg.installed = true
                results.floor.djpeg.command = BenchPeers.djpegCommandLine
                schedule.add("djpeg") { try BenchPeers.djpegRound(jpegs) }
            } else {
                results.floor.djpeg.note = "djpeg could not be run"
            }
        } else {
            results.floor.djpeg.note = jpegs.isEmpty ? "no JPEG files in the corpus" : BenchPeers.installHint
        }

        // 4. Pillow: a first run for its version and failures; a fresh interpreter each round.
        Self.progress("warm-up: Pillow")
        let pillow = BenchPillow(size: size, quality: quality, scratch: scratch, inputs: links)
        let versions = pillow.probe(files: files, into: &results.pillow, errors: &results.errors)
        results.machine.pillowVersion = versions.pillow
        results.machine.pythonVersion = versions.python
        if results.pillow.installed {
            schedule.add("Pillow") { try pillow.round() }
        }

        // 5. thumbd in this process: a first pass at each headroom (the warm-up), then timed rounds.
        Self.progress("warm-up: thumbd in-process")
        var inProcessFiles = files
        for headroom in headrooms {
            let failures = BenchThumbd(files: inProcessFiles, shape: .square(size), workers: workers).firstPass(headroom: headroom)
            guard !failures.isEmpty else { continue }
            let h = BenchReport.number(headroom)
            results.errors += failures.map { var e = $0.error; e.tool = "thumbd, headroom \(h)"; return e }
            results.notes.append("\(failures.count) file(s) failed in-process at headroom \(h) only; they are left out of the in-process figures")
            inProcessFiles.removeAll { file in failures.contains { $0.file.path == file.path } }
        }
        let thumbd = BenchThumbd(files: inProcessFiles, shape: .square(size), workers: workers)
        for headroom in headrooms {
            let request = thumbd.request(headroom: headroom)
            let h = BenchReport.number(headroom)
            schedule.add("thumbd h\(h), one core") { thumbd.oneCoreRound(request) }
            schedule.add("thumbd h\(h), all cores") { await thumbd.allCoresRound(request) }
        }
        let shaped = shape.map { BenchThumbd(files: inProcessFiles, shape: $0, workers: workers) }
        if let shaped {
            // Its own warm-up pass; a file only the shape fails on is named, and its rounds time it as failed.
            let request = shaped.request(headroom: headrooms[0])
            let failures = shaped.firstPass(headroom: headrooms[0])
            results.errors += failures.map { var e = $0.error; e.tool = "thumbd, \(shaped.shape)"; return e }
            schedule.add("thumbd \(shaped.shape), one core") { shaped.oneCoreRound(request) }
            schedule.add("thumbd \(shaped.shape), all cores") { await shaped.allCoresRound(request) }
        }
        let inProcessJPEGs = inProcessFiles.filter(\.isJPEG)
        if !inProcessJPEGs.isEmpty {
            _ = BenchThumbd.decodeFloorRound(inProcessJPEGs)
            schedule.add("decode floor") { BenchThumbd.decodeFloorRound(inProcessJPEGs) }
        }

        // The timed rounds, interleaved across every contender.
        let before = BenchStats.cpuSnapshot()
        let (timed, failed) = await schedule.run(rounds: rounds, progress: Self.progress)
        if let before, let after = BenchStats.cpuSnapshot() {
            results.machine.otherLoadDuringRounds = after.othersShare(since: before, cores: workers)
        }
        for (key, error) in failed.sorted(by: { $0.key < $1.key }) {
            results.notes.append("\(key) stopped: \(error)")
        }
        for run in childRuns {
            let throughput = run.command.throughput(files: files, rounds: timed[run.key] ?? [], warmUp: run.warmUp)
            let (isVips, pinned) = (run.key.hasPrefix("vipsthumbnail"), run.command.pinned)
            switch (isVips, run.box == .square(size)) {
            case (true, true): results.vips.record(throughput, pinned: pinned)
            case (false, true): results.thumbdCLI.record(throughput, pinned: pinned)
            case (true, false): results.shape?.vips.record(throughput, pinned: pinned)
            case (false, false): results.shape?.thumbdCLI.record(throughput, pinned: pinned)
            }
        }
        if let rounds = timed["djpeg"] {
            results.floor.djpeg.oneCore = BenchResults.Throughput(images: jpegs.count, megapixels: BenchCorpus.megapixels(jpegs), rounds: rounds)
        }
        if let rounds = timed["Pillow"] {
            results.pillow.oneCore = BenchResults.Throughput(images: files.count, megapixels: BenchCorpus.megapixels(files), rounds: rounds)
            results.pillow.jpegOneCore = .share(of: rounds, subset: files.indices.filter { files[$0].isJPEG }, files: files)
        }
        if let rounds = timed["decode floor"] {
            results.floor.inProcess = BenchResults.Throughput(images: inProcessJPEGs.count,
                                                              megapixels: BenchCorpus.megapixels(inProcessJPEGs), rounds: rounds)
        }
        for headroom in headrooms {
            let h = BenchReport.number(headroom)
            results.thumbd.append(thumbd.summarize(headroom: headroom, oneCore: timed["thumbd h\(h), one core"] ?? [],
                                                   allCores: timed["thumbd h\(h), all cores"] ?? []))
        }
        if let shaped {
            results.shape?.thumbd = shaped.summarize(headroom: headrooms[0], oneCore: timed["thumbd \(shaped.shape), one core"] ?? [],
                                                     allCores: timed["thumbd \(shaped.shape), all cores"] ?? [])
        }

        // 6. Quality, untimed.
        Self.progress("quality (SSIM against a full-size Lanczos-3 reference)")
        let vipsPNG = results.vips.installed ? peers.vipsPNG() : nil
        let pillowPNG = results.pillow.installed ? pillow.png() : nil
        let qualityRun = BenchQuality(files: corpus.files, size: size, headrooms: headrooms,
                                      peers: [("vipsthumbnail", vipsPNG), ("Pillow", pillowPNG)], workers: workers)
        let scores = await qualityRun.run()
        for h in headrooms.indices {
            results.thumbd[h].ssim = BenchQuality.summary(scores.map { $0.thumbd[h] }, files: corpus.files)
        }
        if vipsPNG != nil { results.vips.ssim = BenchQuality.summary(scores.map { $0.peers[0] }, files: corpus.files) }
        if pillowPNG != nil { results.pillow.ssim = BenchQuality.summary(scores.map { $0.peers[1] }, files: corpus.files) }
        results.errors += scores.flatMap(\.errors)
        if scores.allSatisfy({ $0.thumbd.allSatisfy { $0 == nil } }) {
            results.notes.append("SSIM could not be computed for any file (SSIM.compare gave no finite score)")
        }

        results.machine.loadAverageAtEnd = BenchStats.loadAverage()
        results.computeRatios()
        addNotes()
        return results
    }

    private mutating func fillCorpusSummary(_ corpus: BenchCorpus) {
        let files = corpus.files
        results.corpus.directory = corpus.directory
        results.corpus.files = files.count
        results.corpus.megapixels = BenchCorpus.megapixels(files)
        results.corpus.jpegFiles = corpus.jpegFiles.count
        results.corpus.jpegMegapixels = BenchCorpus.megapixels(corpus.jpegFiles)
        results.corpus.formats = Dictionary(grouping: files, by: { $0.format.rawValue }).mapValues(\.count)
        results.corpus.skipped = corpus.skipped
    }

    private mutating func addNotes() {
        if !results.machine.tasksetAvailable {
            results.notes.append("taskset not found (apt-get install util-linux): no pinned one-core figures for child processes")
        }
        if results.vips.installed {
            results.notes.append("vipsthumbnail's times include its process start-up and file writes (one process for the batch); "
                + "the `thumbd thumbnail` child rows are on the same footing")
        }
        let spawner = ([results.thumbdCLI.oneCore, results.thumbdCLI.allCores, results.vips.oneCore, results.vips.allCores]
            .compactMap { $0?.spawnerRSSBytes } + results.large.files.flatMap { [$0.thumbd.spawnerRSSBytes, $0.vips?.spawnerRSSBytes] }.compactMap { $0 })
            .max()
        if let spawner {
            results.notes.append("child peak RSS cannot read below this process's RSS when it started the child "
                + "(at most \(TextTable.mebibytes(spawner)) here): Linux carries the parent's RSS into a spawned child's ru_maxrss")
        }
        if let others = results.machine.otherLoadDuringRounds, others > 0.05 {
            results.notes.append("other processes used \(Int((others * 100).rounded())) % of the machine's CPU during the timed rounds: "
                + "every figure is slowed, the all-cores ones most; the rounds were interleaved so that the ratios between tools "
                + "stay comparable, but a quiet machine gives truer figures")
        }
        if workers == 1 {
            results.notes.append("one core only: the all-cores figures equal the one-core ones")
        }
    }
}
