import ArgumentParser
import ConsoleText
import Foundation

/// `thumbd-bench crash`: a real daemon SIGKILLed under traffic, again and again, on one cache
/// directory; after each restart nothing it answered may be torn and nothing may be left orphaned.
struct BenchCrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash",
        abstract: "Kill thumbd serve with SIGKILL under a miss storm, a prefetch job and evictions; check the cache after every restart.",
        discussion: HelpText.reflowed("""
            Starts on 127.0.0.1 an origin (python3 -m http.server over --corpus)
            and `thumbd serve` (the thumbd beside this program) on a fresh cache
            directory in a scratch folder (removed afterwards; --keep keeps it with
            every log). The daemon runs with small limits so both tiers evict all
            the time: memory 1 MiB, disk 1 MiB, originals 8 MiB.

            EACH ROUND: for a while drawn from --seed between --min-load and
            --max-load seconds, --connections kept-alive connections ask for
            thumbnails of URLs never asked before (photo k of the corpus as
            ?n=k, at 96, 160, 200 or 320 px, JPEG or WebP), and a fifth of the
            time for one answered before; a prefetch job of 60 new URLs runs
            below them; every 0.25 s an admin DELETE evicts one answered URL.
            Every 200 received whole is recorded: its key and the SHA-256 of its
            body. Then the daemon gets SIGKILL, wherever it is, and is started
            again on the same directory and port.

            AFTER EACH RESTART, with nothing running in the daemon:
            - restart: seconds from spawning it until /readyz answers 200
              (it repairs the directory in the background), polled every 5 ms;
              then until its repair is done (thumbd_cache_repair_progress_ratio 1);
            - verify: `thumbd cache verify --json` on the directory (read-only,
              beside the daemon) must exit 0 with no problem;
            - index rows: the index read with SQLite directly; every row's file
              must exist with the row's size and SHA-256;
            - orphans: after recovery the directory holds, for each row, its
              file, and nothing else under objects/ or in tmp/; any
              other file is an orphan (must be 0);
            - answers: every key answered 200 so far in the run is either still
              cached whole (its file is byte for byte a body answered for it) or
              absent; anything else is torn (must be 0). Each still cached key is
              asked again over HTTP: it must come from the cache (X-Cache not
              miss) with the same bytes.

            Reported per round and in total: answers checked, still cached,
            absent, torn, orphans, verify failures, restart-to-ready and
            repair p50 and max, and how many recoveries repaired something (a
            kill between an index row's commit and its file's rename, or an
            unfinished write). Exit status 1 when any promise broke
            (torn, orphan, a bad row, verify not clean, a daemon that died before
            its kill), 2 on a usage error. --json prints the whole report as one
            JSON object (snake_case keys).

            The same rounds, fewer and shorter, run in the test suite
            (ThumbdBenchTests.CrashRoundTests).
            """)
    )

    @Option(help: "Rounds of load, SIGKILL, restart and checks.") var rounds = 50
    @Option(help: "Seed of every random choice (load durations, URLs, revisits); the same seed replays the same plan.") var seed: UInt64 = 17
    @Option(help: "Folder of photos the origin serves (JPEG, PNG, WebP; not recursive).") var corpus = "../shared/corpora/photos"
    @Option(name: .customLong("min-load"), help: "Fewest seconds of load before a kill.") var minLoad = 0.5
    @Option(name: .customLong("max-load"), help: "Most seconds of load before a kill.") var maxLoad = 3.0
    @Option(help: "Kept-alive connections of the miss storm.") var connections = 4
    @Option(help: "Entries written into the cache before the first start (the disk limit is then their size plus 1 MiB), e.g. 1000000.") var prefill = 0
    @Flag(help: "Keep the scratch folder (the cache directory and every log) and print where it is.") var keep = false
    @Flag(help: "Print the report as one JSON object instead of tables.") var json = false

    func validate() throws {
        guard (1...10_000).contains(rounds) else { throw ValidationError("--rounds must be between 1 and 10000.") }
        guard minLoad >= 0.05, maxLoad >= minLoad, maxLoad <= 600 else {
            throw ValidationError("--min-load must be at least 0.05 s and --max-load between it and 600 s.")
        }
        guard (1...64).contains(connections) else { throw ValidationError("--connections must be between 1 and 64.") }
        guard (0...100_000_000).contains(prefill) else { throw ValidationError("--prefill must be between 0 and 100000000.") }
    }

    func run() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: corpus, isDirectory: &isDirectory), isDirectory.boolValue else {
            FileHandle.standardError.write(Data("bench crash: skipped: the corpus folder \(corpus) does not exist (give one with --corpus DIR).\n".utf8))
            return
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-crash-\(getpid())").path
        defer {
            if keep {
                FileHandle.standardError.write(Data("bench crash: kept \(scratch)\n".utf8))
            } else {
                try? FileManager.default.removeItem(atPath: scratch)
            }
        }
        var settings = CrashRunSettings(images: corpus, thumbd: try ThumbdExecutable.required(), scratch: scratch)
        settings.rounds = rounds
        settings.seed = seed
        settings.loadSeconds = minLoad...maxLoad
        settings.connections = connections
        settings.prefillEntries = prefill
        settings.say = { FileHandle.standardError.write(Data("bench crash: \($0)\n".utf8)) }
        let report = try CrashRun.run(settings)
        if json { try printBenchJSON(report) } else { print(report.render(), terminator: "") }
        if !report.totals.passed { throw ExitCode.failure }
    }
}
