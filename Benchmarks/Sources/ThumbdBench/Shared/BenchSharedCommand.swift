import ArgumentParser
import ConsoleText
import Foundation
import TestSupport

/// `thumbd-bench shared`: the fleet's shared result tier on a real S3 server on loopback.
struct BenchSharedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared",
        abstract: "The shared result tier (cache.shared): a shared hit's latency beside a disk hit's and a miss's.",
        discussion: HelpText.reflowed("""
            Starts SeaweedFS on loopback (from .build/s3-venv: make s3-deps), a python origin over \
            --corpus, and thumbd serve three times per run, each on its own cache, writing to and \
            reading from one bucket: node A makes every thumbnail (misses) and writes them to the \
            tier; A again after a clean restart answers them from its disk (memory empty); node B, \
            empty, answers them from the shared tier. Reports p50 and p99 of each kind, and how many \
            originals B downloaded (the fleet's promise: none). One request at a time, so the figures \
            are latencies, not throughput.
            """))

    @Option(help: "Folder of photos the origin serves (JPEG, PNG, WebP; not recursive).")
    var corpus: String = "../shared/corpora/photos"

    @Option(help: "Photos per run (the first N of the corpus, repeated when it has fewer).")
    var photos: Int = 60

    @Option(help: "Thumbnail size.")
    var size: Int = 200

    @Option(help: "Runs, each on fresh caches and a fresh prefix of the bucket.")
    var runs: Int = 3

    @Flag(help: "Print every figure as one JSON object instead of tables.")
    var json = false

    func validate() throws {
        guard (1...10_000).contains(photos) else { throw ValidationError("--photos must be between 1 and 10000.") }
        guard (1...20).contains(runs) else { throw ValidationError("--runs must be between 1 and 20.") }
        guard BenchHitOptions.corpusExists(corpus, benchmark: "shared") else { throw ExitCode(2) }
        guard S3TestServer.ready else { throw ValidationError(S3TestServer.missing.replacingOccurrences(of: "tests are SKIPPED", with: "bench cannot run")) }
    }

    func run() throws {
        let executable = try ThumbdExecutable.required()
        let python = try BenchHitSetUp.python()
        let scratch = try BenchScratch()
        defer { scratch.remove() }
        let logs = try scratch.folder("logs")
        let corpus = try BenchCorpus.load(self.corpus)
        guard !corpus.files.isEmpty else { throw ValidationErrorMessage("no photos in \(self.corpus)") }
        let names = (0..<photos).map { corpus.files[$0 % corpus.files.count].name }
        let say: (String) -> Void = { FileHandle.standardError.write(Data("bench: \($0)\n".utf8)) }

        say("starting SeaweedFS on loopback")
        let store = try S3TestServer.start()
        defer { store.stop() }
        try store.makeBucket("thumbd-bench")
        let origin = try BenchOrigin.start(python: python, directory: corpus.directory, logs: logs)
        defer { origin.process.stop() }

        var results: [BenchSharedRun] = []
        for run in 1...runs {
            let measured = try BenchSharedRun.measure(run: run, names: names, size: size, executable: executable, originPort: origin.port,
                                                      store: store, scratch: scratch, logs: logs, say: say)
            results.append(measured)
        }
        let report = BenchSharedReport(photos: photos, size: size, runs: results)
        if json { try printBenchJSON(report) } else { print(report.render()) }
    }
}
