import Foundation
import Testing
@testable import ThumbdBench

struct MemoryCacheBenchmarkTests {
    @Test("the benchmark runs on threads and in tasks, and every lookup it makes hits")
    func smoke() async {
        let threads = MemoryCacheBenchmark.runOnThreads(tasks: 2, iterations: 5_000, entries: 500, valueSize: 64, writers: 1)
        #expect(threads.mode == "threads" && threads.lookups == 10_000)
        #expect(threads.hits == threads.lookups)
        #expect(threads.seconds > 0 && threads.hitsPerSecond > 0)
        let tasks = await MemoryCacheBenchmark.run(tasks: 3, iterations: 5_000, entries: 500, valueSize: 64, writers: 1)
        #expect(tasks.mode == "tasks" && tasks.lookups == 15_000)
        #expect(tasks.hits == tasks.lookups)
        #expect(await MemoryCacheBenchmark.hitsPerSecond(tasks: 1, iterations: 1_000) > 0)
    }

    /// Measures, never asserts a speed. In release (the test target needs `-enable-testing` for
    /// other suites' `@testable` imports):
    /// `THUMBD_MEM_BENCH=1 swift test -c release -Xswiftc -enable-testing --filter MemoryCacheBenchmarkTests`
    @Test("hits per second (set THUMBD_MEM_BENCH=1)", .enabled(if: ProcessInfo.processInfo.environment["THUMBD_MEM_BENCH"] == "1"))
    func measure() async {
        let lookups = 8_000_000
        for (tasks, writers) in [(1, 0), (2, 0), (4, 0), (2, 1)] {
            for mode in ["threads", "tasks"] {
                var best: MemoryCacheBenchmark.Result?
                for _ in 0..<3 {
                    let result = mode == "threads"
                        ? MemoryCacheBenchmark.runOnThreads(tasks: tasks, iterations: lookups / tasks, writers: writers)
                        : await MemoryCacheBenchmark.run(tasks: tasks, iterations: lookups / tasks, writers: writers)
                    #expect(result.hits == result.lookups)
                    if result.hitsPerSecond > best?.hitsPerSecond ?? 0 { best = result }
                }
                guard let best else { continue }
                print("memory cache [\(mode)]: \(tasks) reader(s), \(writers) writer(s), \(best.cores) cores, \(best.stripes) stripes: "
                    + "\(Int(best.hitsPerSecond)) hits/s, \(Int(best.hitsPerCPUSecond)) hits per CPU-second "
                    + "(best of 3; \(best.seconds)s wall, \(best.cpuSeconds)s CPU; \(best.writes) writes)")
            }
        }
    }
}
