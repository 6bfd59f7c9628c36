import ArgumentParser
import Foundation

/// The options every benchmark of cache hits over HTTP shares (`serve`, `fleet`): the photos, the
/// hot set, the wrk runs and their rounds, and what to do with the results.
struct BenchHitOptions: ParsableArguments {
    @Option(help: "Folder of photos the origin serves (JPEG, PNG, WebP; not recursive).")
    var corpus: String = "../shared/corpora/photos"

    @Option(help: "Thumbnail size of the hot set.")
    var size: Int = 200

    @Option(help: "Seconds per measured wrk run.")
    var duration: Int = 10

    @Option(help: "Seconds of wrk before each measured run, not counted.")
    var warmup: Int = 2

    @Option(help: "Rounds of the hit runs (each server in turn each round); the median run is shown.")
    var rounds: Int = 3

    @Option(help: "wrk threads for the hit runs (default: one per core).")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "wrk connections for the hit runs.")
    var connections: Int = 64

    @Flag(help: "Keep the scratch folder (configurations, logs, caches) and print where it is.")
    var keep = false

    @Flag(help: "Print every figure as one JSON object instead of tables.")
    var json = false

    func validate() throws {
        guard (1...3600).contains(duration) else { throw ValidationError("--duration must be between 1 and 3600 seconds.") }
        guard (0...600).contains(warmup) else { throw ValidationError("--warmup must be between 0 and 600 seconds.") }
        guard (1...50).contains(rounds) else { throw ValidationError("--rounds must be between 1 and 50.") }
        guard threads >= 1, connections >= threads else { throw ValidationError("--connections must be at least --threads (>= 1).") }
    }

    /// False (with a line on stderr saying why the benchmark is skipped) when the corpus is missing.
    func corpusExists(benchmark: String) -> Bool {
        Self.corpusExists(corpus, benchmark: benchmark)
    }

    /// The same for any benchmark with a corpus folder; also warns when this is a debug build.
    static func corpusExists(_ corpus: String, benchmark: String) -> Bool {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; its figures mean little. Build with swift build -c release.\n".utf8))
        #endif
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue else {
            FileHandle.standardError.write(Data("\(benchmark): skipped: the corpus folder \(corpus) does not exist (give one with --corpus DIR).\n".utf8))
            return false
        }
        return true
    }

    /// The results as tables, or as one JSON object with --json.
    func print<Results: Encodable>(_ results: Results, render: () -> String) throws {
        if json {
            try printBenchJSON(results)
        } else {
            Swift.print(render(), terminator: "")
        }
    }
}

/// How the hit runs were made, as reports print and record them.
struct BenchHitRuns: Encodable {
    var seconds: Int
    var warmupSeconds: Int
    var rounds: Int
    var threads: Int
    var connections: Int

    init(_ options: BenchHitOptions) {
        (seconds, warmupSeconds, rounds) = (options.duration, options.warmup, options.rounds)
        (threads, connections) = (options.threads, options.connections)
    }

    /// "wrk -t2 -c64, 10 s per run after a 2 s warm-up, 3 round(s) interleaved"
    var summary: String {
        "wrk -t\(threads) -c\(connections), \(seconds) s per run after a \(warmupSeconds) s warm-up, \(rounds) round(s) interleaved"
    }
}
