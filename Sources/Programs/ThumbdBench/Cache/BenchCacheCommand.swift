import ArgumentParser
import ConsoleText
import Foundation

/// `thumbd-bench cache`: the cache's targets, measured on a scratch directory.
struct BenchCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Measure the cache: open time, lookups and inserts at 100k entries, memory-tier hits/s.",
        discussion: """
            Fills a scratch cache (--dir, default a new folder under the system temp directory, removed
            afterwards) with --entries entries, then measures: opening it (clean and after an unclean
            shutdown), disk lookups (p50/p99), inserts that must evict (p50/p99), and a fill of twice a
            small limit, sampling the disk total after every insert. Then the memory tier's hits per
            second from concurrent tasks. Targets: open < 300 ms, lookup p99 < 1 ms, insert with eviction
            p99 < 5 ms, the fill never above its limit, memory >= 5 million hits/s on 2 cores.
            """
    )

    @Option(help: "Entries to fill the disk tier with.")
    var entries: Int = 100_000

    @Option(help: "Scratch directory (kept afterwards when given).")
    var dir: String?

    @Option(name: .customLong("memory-tasks"), help: "Concurrent tasks for the memory-tier measurement (default: one per core).")
    var memoryTasks: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Print JSON for tools.")
    var json = false

    func validate() throws {
        guard entries >= 1000 else { throw ValidationError("--entries must be at least 1000.") }
        guard memoryTasks >= 1 else { throw ValidationError("--memory-tasks must be at least 1.") }
    }

    @Option(name: .customLong("memory-lookups"), help: "Lookups per task for the memory-tier measurement.")
    var memoryLookups: Int = 2_000_000

    func run() async throws {
        let directory = dir.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-bench-cache-\(getpid())", isDirectory: true)
        defer { if dir == nil { try? FileManager.default.removeItem(at: directory) } }
        var options = DiskCacheBenchmark.Options()
        options.entries = entries
        let disk = try DiskCacheBenchmark.run(directory: directory, options: options) { line in
            FileHandle.standardError.write(Data("bench: \(line)\n".utf8))
        }
        FileHandle.standardError.write(Data("bench: memory tier, \(memoryTasks) tasks, then again beside a writer\n".utf8))
        let memory = await MemoryCacheBenchmark.run(tasks: memoryTasks, iterations: memoryLookups)
        let memoryWithWriter = await MemoryCacheBenchmark.run(tasks: memoryTasks, iterations: memoryLookups, writers: 1)
        let report = BenchCacheReport(cores: ProcessInfo.processInfo.activeProcessorCount, disk: disk,
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
    var memory: MemoryCacheBenchmark.Result
    var memoryWithWriter: MemoryCacheBenchmark.Result

    enum CodingKeys: String, CodingKey {
        case cores, disk, memory
        case memoryWithWriter = "memory_with_writer"
    }

    func render() -> String {
        func met(_ ok: Bool) -> String { ok ? "met" : "MISSED" }
        let d = disk
        var out = ["thumbd-bench cache: \(cores) cores, \(d.entries) disk entries, inserts fsync \(d.insertFsync)", ""]
        out.append(TextTable.render(["disk tier", "measured", "target", ""], [
            ["open (clean shutdown)", TextTable.fixed(d.openMilliseconds, 1) + " ms", "< 300 ms", met(d.openTargetMet)],
            ["open after kill -9 (reconcile)", TextTable.fixed(d.openAfterCrashMilliseconds, 1) + " ms", "", ""],
            ["open after a machine crash (recent files read)", TextTable.fixed(d.openAfterMachineCrashMilliseconds, 1) + " ms", "", ""],
            ["lookup p50", TextTable.fixed(d.lookupP50Microseconds, 1) + " µs", "", ""],
            ["lookup p99", TextTable.fixed(d.lookupP99Microseconds, 1) + " µs", "< 1000 µs", met(d.lookupTargetMet)],
            ["insert with eviction p50", TextTable.fixed(d.insertWithEvictionP50Milliseconds, 2) + " ms", "", ""],
            ["insert with eviction p99", TextTable.fixed(d.insertWithEvictionP99Milliseconds, 2) + " ms", "< 5 ms", met(d.insertTargetMet)],
            ["fill of \(TextTable.bytes(d.fillWrittenBytes)) into \(TextTable.bytes(d.fillLimitBytes)): largest total",
             TextTable.bytes(d.fillMaxObservedBytes), "<= limit", met(d.fillTargetMet)],
        ], left: [3]))
        out.append("")
        let target = memory.hitsPerSecond >= 5_000_000
        out.append(TextTable.render(["memory tier", "tasks", "hits/s", "target", ""], [
            ["lookups only", "\(memory.tasks)", String(format: "%.2f M", memory.hitsPerSecond / 1e6), ">= 5 M", met(target)],
            ["lookups beside a writer", "\(memoryWithWriter.tasks)+\(memoryWithWriter.writers)",
             String(format: "%.2f M", memoryWithWriter.hitsPerSecond / 1e6), "", ""],
        ], left: [4]))
        return out.joined(separator: "\n")
    }
}
