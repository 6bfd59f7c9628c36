import Foundation
import TestSupport
import Synchronization
import ThumbCache

/// Measures the memory tier's hits per second from concurrent callers, for `thumbd-bench cache`.
/// Nothing here asserts a speed; it reports one.
///
/// The cache is pre-filled with `entries` entries of `valueSize` bytes; each reader makes
/// `iterations` lookups of keys in a random order of its own, from an array of keys built before
/// the clock starts (each reader its own, built separately from the stored keys, as each request
/// builds its own key). A lookup copies its key out of that array — retaining the key's strings,
/// which for 10k keys are mostly out of cache — and that copy costs about as much as the cache
/// itself, so these figures are a floor for the tier, not a best case. With `writers` > 0 that many more callers keep storing other
/// keys (replacing values, so the cache also frees buffers) until the readers finish, to show
/// what a hit costs while sets take the same stripe locks.
enum MemoryCacheBenchmark {
    struct Result: Sendable, Codable, Equatable {
        /// "tasks" (`run`) or "threads" (`runOnThreads`).
        var mode: String
        /// Callers doing lookups.
        var tasks: Int
        /// Callers storing at the same time.
        var writers: Int
        var entries: Int
        var valueSize: Int
        var stripes: Int
        var cores: Int
        /// Lookups made by all readers, and how many hit (all of them, unless something is wrong).
        var lookups: Int
        var hits: Int
        /// `set` calls the writers made while the readers ran.
        var writes: Int
        var seconds: Double
        /// CPU time this process used meanwhile (all threads, user + system), so a run on a busy
        /// machine can be told apart from a slow cache.
        var cpuSeconds: Double
        /// Hits per second over the wall time of the whole run, all readers together.
        var hitsPerSecond: Double
        /// Hits per second of CPU time: what one fully available core does. Times the cores, it is
        /// what the machine would do if nothing else ran and nothing contended.
        var hitsPerCPUSecond: Double

        init(mode: String, tasks: Int, writers: Int, entries: Int, valueSize: Int, stripes: Int, cores: Int,
                    lookups: Int, hits: Int, writes: Int, seconds: Double, cpuSeconds: Double) {
            self.mode = mode
            self.tasks = tasks
            self.writers = writers
            self.entries = entries
            self.valueSize = valueSize
            self.stripes = stripes
            self.cores = cores
            self.lookups = lookups
            self.hits = hits
            self.writes = writes
            self.seconds = seconds
            self.cpuSeconds = cpuSeconds
            self.hitsPerSecond = seconds > 0 ? Double(hits) / seconds : 0
            self.hitsPerCPUSecond = cpuSeconds > 0 ? Double(hits) / cpuSeconds : 0
        }
    }

    /// Hits per second from `tasks` concurrent tasks, each making `iterations` lookups.
    static func hitsPerSecond(tasks: Int, iterations: Int = 2_000_000) async -> Double {
        await run(tasks: tasks, iterations: iterations).hitsPerSecond
    }

    /// The same measurement with readers and writers each on a thread of their own, so they run
    /// side by side whatever the executor (and, with more threads than cores, get preempted
    /// anywhere, even holding a lock). Blocks until done: call it from a command, not from a task.
    static func runOnThreads(
        tasks: Int, iterations: Int = 2_000_000, entries: Int = 10_000, valueSize: Int = 1024,
        writers: Int = 0, stripes: Int? = nil
    ) -> Result {
        let setup = Setup(readers: tasks, entries: entries, valueSize: valueSize, writers: writers, stripes: stripes)
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        let writersDone = DispatchGroup()
        let hits = Counter()
        let writes = Counter()
        for w in 0..<writers {
            writersDone.enter()
            Thread {
                gate.wait()
                var rng = SeededRandom(seed: UInt64(w) &+ 0xbad)
                var count = 0
                while !setup.stop.isSet {
                    setup.write(batch: 1024, rng: &rng)
                    count += 1024
                }
                writes.add(count)
                writersDone.leave()
            }.start()
        }
        for t in 0..<setup.readers {
            finished.enter()
            Thread {
                gate.wait()
                let found = setup.read(task: t, from: 0, count: iterations)
                hits.add(found)
                finished.leave()
            }.start()
        }
        let clock = ContinuousClock()
        let cpuStart = processCPUSeconds()
        let start = clock.now
        for _ in 0..<(setup.readers + writers) { gate.signal() }
        finished.wait()
        let elapsed = start.duration(to: clock.now)
        let cpu = processCPUSeconds() - cpuStart
        setup.stop.set()
        writersDone.wait()
        return setup.result(mode: "threads", iterations: iterations, hits: hits.value, writes: writes.value, elapsed: elapsed, cpu: cpu)
    }

    /// Readers and writers as Swift tasks in a task group, as the server's request handlers call
    /// the cache. Tasks yield every 4096 operations so that, with more tasks than cores, they
    /// interleave on the cooperative pool instead of running one after another.
    static func run(
        tasks: Int, iterations: Int = 2_000_000, entries: Int = 10_000, valueSize: Int = 1024,
        writers: Int = 0, stripes: Int? = nil
    ) async -> Result {
        let setup = Setup(readers: tasks, entries: entries, valueSize: valueSize, writers: writers, stripes: stripes)
        let clock = ContinuousClock()
        let cpuStart = processCPUSeconds()
        let start = clock.now
        let (hits, writes) = await withTaskGroup(of: (reader: Bool, count: Int).self) { group in
            for w in 0..<writers {
                group.addTask {
                    var rng = SeededRandom(seed: UInt64(w) &+ 0xbad)
                    var count = 0
                    while !setup.stop.isSet {
                        setup.write(batch: 1024, rng: &rng)
                        count += 1024
                        await Task.yield()
                    }
                    return (false, count)
                }
            }
            for t in 0..<setup.readers {
                group.addTask {
                    var found = 0
                    var done = 0
                    while done < iterations {
                        let batch = min(4096, iterations - done)
                        found += setup.read(task: t, from: done, count: batch)
                        done += batch
                        await Task.yield()
                    }
                    return (true, found)
                }
            }
            var hits = 0
            var writes = 0
            var readersLeft = setup.readers
            for await result in group {
                if result.reader {
                    hits += result.count
                    readersLeft -= 1
                    if readersLeft == 0 { setup.stop.set() }
                } else {
                    writes += result.count
                }
            }
            return (hits, writes)
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = processCPUSeconds() - cpuStart
        return setup.result(mode: "tasks", iterations: iterations, hits: hits, writes: writes, elapsed: elapsed, cpu: cpu)
    }

    /// Everything a run needs, built before the clock starts.
    private final class Setup: Sendable {
        let readers: Int
        let entries: Int
        let valueSize: Int
        let writers: Int
        let cache: MemoryCache
        /// Per reader: each reader looks up its own copies of the keys, as each request builds its
        /// own key, so readers do not share (and bounce between cores) the keys' reference counts.
        let lookupKeys: [[CacheKey]]
        let orders: [[Int32]]
        let writerKeys: [CacheKey]
        let writerValues: [[UInt8]]
        let stop = StopFlag()
        static let pattern = 1 << 16

        init(readers: Int, entries: Int, valueSize: Int, writers: Int, stripes: Int?) {
            self.readers = max(1, readers)
            self.entries = max(1, entries)
            self.valueSize = max(0, valueSize)
            self.writers = max(0, writers)
            let writerKeyCount = writers > 0 ? self.entries : 0
            let capacity = (self.entries + writerKeyCount) * 4  // ample: no stripe overflows, every lookup hits
            cache = MemoryCache(
                limits: MemoryCacheLimits(maxBytes: capacity * max(self.valueSize, 1), maxEntries: capacity),
                stripes: stripes
            )
            let variant = CacheVariant(size: 200, fit: "cover", format: "jpeg", quality: 82)
            func key(_ i: Int, _ prefix: String) -> CacheKey {
                // A realistic length: a shop's CDN path, well past the inline small-string size.
                CacheKey(url: try! NormalizedURL("https://img.shop.example/\(prefix)/products/\(i)/main-photo-1200x1200.jpg"), variant: variant)
            }
            for i in 0..<self.entries {
                cache.set(key(i, "p"), [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: self.valueSize))
            }
            let entryCount = self.entries
            lookupKeys = (0..<self.readers).map { _ in (0..<entryCount).map { key($0, "p") } }
            writerKeys = (0..<writerKeyCount).map { key($0, "w") }
            writerValues = (0..<4).map { [UInt8](repeating: UInt8($0), count: max(valueSize, 0)) }
            orders = (0..<self.readers).map { t in
                var rng = SeededRandom(seed: UInt64(t) &+ 0x5eed)
                return (0..<Self.pattern).map { _ in Int32(truncatingIfNeeded: rng.next() % UInt64(entryCount)) }
            }
        }

        /// `count` lookups in reader `task`'s order starting at `from`; returns the hits.
        func read(task: Int, from: Int, count: Int) -> Int {
            let cache = self.cache  // one retain per call, not one per lookup
            let keys = lookupKeys[task]
            let order = orders[task]
            let mask = Self.pattern - 1
            var found = 0
            for i in from..<(from + count) {
                if let bytes = cache.get(keys[Int(order[i & mask])]) {
                    found += bytes.isEmpty && valueSize > 0 ? 0 : 1
                }
            }
            return found
        }

        func write(batch: Int, rng: inout SeededRandom) {
            let cache = self.cache
            writerKeys.withUnsafeBufferPointer { keys in
                for _ in 0..<batch {
                    let r = rng.next()
                    cache.set(keys[Int(r % UInt64(keys.count))], writerValues[Int(r >> 62)])
                }
            }
        }

        func result(mode: String, iterations: Int, hits: Int, writes: Int, elapsed: Duration, cpu: Double) -> Result {
            Result(
                mode: mode, tasks: readers, writers: writers, entries: entries, valueSize: valueSize,
                stripes: cache.stripeCount, cores: ProcessInfo.processInfo.activeProcessorCount,
                lookups: readers * max(0, iterations), hits: hits, writes: writes,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18,
                cpuSeconds: cpu
            )
        }
    }
}

/// CPU time used by the whole process so far.
private func processCPUSeconds() -> Double {
    var now = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now) == 0 else { return 0 }
    return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
}

private final class Counter: Sendable {
    private let atomic = Atomic<Int>(0)
    var value: Int { atomic.load(ordering: .acquiring) }
    func add(_ n: Int) { atomic.add(n, ordering: .releasing) }
}

private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
