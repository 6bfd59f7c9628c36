import ArgumentParser
import ConsoleText
import Foundation
import ThumbCache

/// `thumbd-bench cache`: the cache's targets, measured on a scratch directory.
struct BenchCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Measure the cache at any size: first answer after each kind of stop, memory per entry, lookups, inserts.",
        discussion: HelpText.reflowed("""
            Fills a cache directory with --entries entries (in bulk: the files and index rows the \
            cache writes, without going through a daemon; about 1,000-4,000 bytes each), or reuses \
            --dir when it already holds that many. Then, in process: opening it after a clean close, \
            after a kill and after a simulated machine crash (the repair then runs in the background: \
            how long it takes), disk lookups (p50/p99), inserts that must evict (p50/p99, entries \
            evicted per insert), and a fill of twice a small limit, sampling the disk total after \
            every insert. Then `thumbd serve` itself (the thumbd beside this program) on that \
            directory: the time from its start to /readyz, to a cached entry answered and to a miss \
            answered, after a clean stop, after SIGKILL and after a simulated machine crash, and \
            restarted with half the limit (then how long the trim of the excess takes; the cache is \
            left with half its entries); and its VmRSS against the same daemon on an empty cache, \
            per entry. Then the memory tier's hits \
            per second from concurrent tasks.

            Targets: first answer within 1 s of the start after any stop; VmRSS at most 200 bytes an \
            entry over the base; lookup p99 < 1 ms; insert with eviction p99 < 5 ms; the fill never \
            above its limit; memory >= 5 million hits/s on 2 cores.

            --fill-only --dir DIR --entries N leaves at DIR a cache that \
            `THUMBD_CACHE_DIR=DIR thumbd serve` opens as it is (give the daemon a disk limit that \
            holds it, e.g. THUMBD_CACHE_DISK_MAX_MIB). 10,000,000 entries take about 40 GB of disk \
            (a 4 KiB block each) and 10 million inodes.
            """)
    )

    @Option(help: "Entries in the disk tier.")
    var entries: Int = 100_000

    @Option(help: "The cache directory (kept afterwards when given, and reused when it holds --entries entries).")
    var dir: String?

    @Flag(name: .customLong("fill-only"), help: "Only fill --dir with --entries entries, measure nothing.")
    var fillOnly = false

    @Flag(name: .customLong("no-daemon"), help: "Leave out the measurements of thumbd serve.")
    var noDaemon = false

    @Option(name: .customLong("memory-tasks"), help: "Concurrent tasks for the memory-tier measurement (default: one per core).")
    var memoryTasks: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Print JSON for tools.")
    var json = false

    func validate() throws {
        guard entries >= 1000 else { throw ValidationError("--entries must be at least 1000.") }
        guard memoryTasks >= 1 else { throw ValidationError("--memory-tasks must be at least 1.") }
        if fillOnly && dir == nil { throw ValidationError("--fill-only needs --dir: the folder the cache is left in.") }
    }

    @Option(name: .customLong("memory-lookups"), help: "Lookups per task for the memory-tier measurement.")
    var memoryLookups: Int = 2_000_000

    @Option(name: .customLong("insert-fsync"), help: "cache.fsync for the timed inserts: batch (the default users run), none, data or full.")
    var insertFsync: FsyncPolicy = DiskCacheLimits().fsync

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-cache-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let directory = dir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? scratch.appendingPathComponent("cache", isDirectory: true)
        let say: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("bench: \($0)\n".utf8)) }
        let populateSeconds = try DiskCacheBenchmark.prepare(directory: directory, entries: entries, progress: say)
        if fillOnly {
            say("left \(entries) entries at \(directory.path): THUMBD_CACHE_DIR=\(directory.path) THUMBD_CACHE_DISK_MAX_MIB=1048576 thumbd serve")
            return
        }
        var options = DiskCacheBenchmark.Options()
        options.entries = entries
        options.inserts = min(options.inserts, entries / 10)  // the daemon's figures need most entries still there
        options.fsync = insertFsync
        let disk = try DiskCacheBenchmark.run(cacheDir: directory, scratch: scratch, options: options, populateSeconds: populateSeconds,
                                              progress: say)
        let daemon = noDaemon ? nil : try DaemonStartBenchmark.run(thumbd: try ThumbdExecutable.required(), cacheDir: directory,
                                                                   entries: entries, scratch: scratch, progress: say)
        say("memory tier, \(memoryTasks) tasks, then again beside a writer")
        let memory = await MemoryCacheBenchmark.run(tasks: memoryTasks, iterations: memoryLookups)
        let memoryWithWriter = await MemoryCacheBenchmark.run(tasks: memoryTasks, iterations: memoryLookups, writers: 1)
        let report = BenchCacheReport(cores: ProcessInfo.processInfo.activeProcessorCount, disk: disk, daemon: daemon,
                                      memory: memory, memoryWithWriter: memoryWithWriter)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.render())
        }
    }
}

/// What `thumbd-bench cache` measured, as JSON for tools or tables for people.
struct BenchCacheReport: Encodable {
    var cores: Int
    var disk: DiskCacheBenchmark.Result
    var daemon: DaemonStartBenchmark.Result?
    var memory: MemoryCacheBenchmark.Result
    var memoryWithWriter: MemoryCacheBenchmark.Result

    enum CodingKeys: String, CodingKey {
        case cores, disk, daemon, memory
        case memoryWithWriter = "memory_with_writer"
    }

    func render() -> String {
        func met(_ ok: Bool) -> String { ok ? "met" : "MISSED" }
        let d = disk
        var out = ["thumbd-bench cache: \(cores) cores, \(d.entries) disk entries, inserts fsync \(d.insertFsync)", ""]
        out.append(TextTable.render(["disk tier, in process", "measured", "target", ""], [
            ["fill (bulk)", d.populateSeconds > 0 ? TextTable.fixed(d.populateSeconds, 1) + " s" : "reused", "", ""],
            ["open (clean shutdown)", TextTable.fixed(d.openMilliseconds, 1) + " ms", "< 1000 ms", met(d.openMilliseconds < 1000)],
            ["open after kill -9", TextTable.fixed(d.openAfterCrashMilliseconds, 1) + " ms", "< 1000 ms", met(d.openAfterCrashMilliseconds < 1000)],
            ["  its repair in the background", TextTable.fixed(d.repairAfterCrashSeconds, 2) + " s", "", ""],
            ["open after a machine crash", TextTable.fixed(d.openAfterMachineCrashMilliseconds, 1) + " ms", "< 1000 ms",
             met(d.openAfterMachineCrashMilliseconds < 1000)],
            ["  its repair in the background (recent files read)", TextTable.fixed(d.repairAfterMachineCrashSeconds, 2) + " s", "", ""],
            ["lookup (index row) p50", TextTable.fixed(d.indexLookupP50Microseconds, 1) + " µs", "", ""],
            ["lookup (index row) p99", TextTable.fixed(d.indexLookupP99Microseconds, 1) + " µs", "< 1000 µs", met(d.lookupTargetMet)],
            ["read (row and file, checked) p50", TextTable.fixed(d.lookupP50Microseconds, 1) + " µs", "", ""],
            ["read (row and file, checked) p99", TextTable.fixed(d.lookupP99Microseconds, 1) + " µs", "", ""],
            ["insert with eviction p50", TextTable.fixed(d.insertWithEvictionP50Milliseconds, 2) + " ms", "", ""],
            ["insert with eviction p99", TextTable.fixed(d.insertWithEvictionP99Milliseconds, 2) + " ms", "< 5 ms", met(d.insertTargetMet)],
            ["  entries evicted per insert", TextTable.fixed(d.evictionsPerInsert, 2), "", ""],
            ["fill of \(TextTable.bytes(d.fillWrittenBytes)) into \(TextTable.bytes(d.fillLimitBytes)): largest total",
             TextTable.bytes(d.fillMaxObservedBytes), "<= limit", met(d.fillTargetMet)],
        ], left: [3]))
        out.append("")
        if let daemon {
            var rows: [[String]] = []
            for (name, start) in [("after a clean stop", daemon.afterCleanStop), ("after kill -9", daemon.afterKill),
                                  ("after a machine crash (simulated)", daemon.afterMachineCrash),
                                  ("with half the limit (repair s: the trim's)", daemon.afterLoweredLimit)] {
                rows.append([name, TextTable.fixed(start.readyMilliseconds, 1), TextTable.fixed(start.firstHitMilliseconds, 1),
                             TextTable.fixed(start.firstMissMilliseconds, 1), start.repairSeconds > 0 ? TextTable.fixed(start.repairSeconds, 1) : "-"])
            }
            out.append(TextTable.render(["thumbd serve, \(daemon.entries) entries", "/readyz ms", "first hit ms", "first miss ms", "repair s"], rows))
            out.append("first answer: \(TextTable.fixed(daemon.firstAnswerMilliseconds, 1)) ms at most (target <= 1000 ms) \(met(daemon.firstAnswerTargetMet))")
            out.append("VmRSS \(TextTable.bytes(daemon.rssBytes)) against \(TextTable.bytes(daemon.baseRSSBytes)) on an empty cache after \(daemon.hitsSampled) "
                       + "requests (\(daemon.hitsFromCache) answered from the cache): \(TextTable.fixed(daemon.bytesPerEntry, 1)) bytes an entry "
                       + "(target <= 200) \(met(daemon.memoryTargetMet))")
            out.append("")
        }
        let target = memory.hitsPerSecond >= 5_000_000
        out.append(TextTable.render(["memory tier", "tasks", "hits/s", "target", ""], [
            ["lookups only", "\(memory.tasks)", String(format: "%.2f M", memory.hitsPerSecond / 1e6), ">= 5 M", met(target)],
            ["lookups beside a writer", "\(memoryWithWriter.tasks)+\(memoryWithWriter.writers)",
             String(format: "%.2f M", memoryWithWriter.hitsPerSecond / 1e6), "", ""],
        ], left: [4]))
        return out.joined(separator: "\n")
    }
}

extension FsyncPolicy: @retroactive ExpressibleByArgument {}
