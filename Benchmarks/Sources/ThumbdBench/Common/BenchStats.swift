#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small measuring tools for the benchmark: a monotonic clock, order statistics, and the process's
/// own peak resident memory.
enum BenchStats {
    /// Seconds on the monotonic clock (for differences only).
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Nearest-rank percentile (p in 0...100) of the values.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }

    // MARK: - CPU time

    /// User + system CPU seconds of this process (every thread) so far. What a round used, unlike
    /// its wall clock, hardly changes when other work shares the machine.
    static func ownCPUSeconds() -> Double { cpuSeconds(children: false) }

    /// User + system CPU seconds of this process's children that have been reaped (ChildProcess
    /// waits for each with wait4), so a difference around one child run is that run's CPU.
    static func reapedChildrenCPUSeconds() -> Double { cpuSeconds(children: true) }

    private static func cpuSeconds(children: Bool) -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t((children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue)
        #else
        let who = children ? RUSAGE_CHILDREN : RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return 0 }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    // MARK: - Own memory

    /// Peak resident set size of this process so far (VmHWM from /proc/self/status), in bytes.
    static func peakRSSBytes() -> Int? {
        procStatusKilobytes("VmHWM").map { $0 * 1024 }
    }

    static func currentRSSBytes() -> Int? {
        procStatusKilobytes("VmRSS").map { $0 * 1024 }
    }

    /// Sets the peak-RSS mark back to the current RSS (Linux: "5" into /proc/self/clear_refs), so the
    /// next `peakRSSBytes()` is the peak of what ran in between. Returns false where that is not allowed;
    /// the peak then covers the whole process life so far.
    @discardableResult
    static func resetPeakRSS() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Makes this process's memory as small as it can be and restarts its peak-RSS mark there, before
    /// in-process rounds or a child whose peak RSS is measured; returns the RSS left (VmRSS).
    ///
    /// Linux starts a child's ru_maxrss at the spawning process's peak RSS: posix_spawn shares the
    /// parent's address space until exec, and exec records that address space's high-water mark as the
    /// child's. So: give free heap back to the kernel (malloc_trim) and reset the high-water mark to
    /// the current RSS. A child's figure can still not be below the value returned.
    @discardableResult
    static func shrinkAndResetPeakRSS() -> Int? {
        _ = mallocTrim?(0)
        resetPeakRSS()
        return currentRSSBytes()
    }

    /// glibc's malloc_trim, which Swift's Glibc module does not declare (nil elsewhere).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
        return nil
        #endif
    }()

    private static func procStatusKilobytes(_ key: String) -> Int? {
        guard let text = readSmallFile("/proc/self/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            let digits = line.dropFirst(key.count + 1).filter { $0.isNumber }
            return Int(digits)
        }
        return nil
    }

    /// CPU time counters for telling this benchmark's work from everything else on the machine.
    struct CPUSnapshot {
        /// Busy time of every CPU together (user, nice, system, irq, softirq, steal), seconds.
        var machineBusy: Double
        /// This process and its waited-for children, seconds.
        var own: Double
        var wall: Double

        /// The share of the machine's capacity (all cores) used by other processes since `start`.
        func othersShare(since start: CPUSnapshot, cores: Int) -> Double? {
            let elapsed = wall - start.wall
            guard elapsed > 0, cores > 0 else { return nil }
            let others = (machineBusy - start.machineBusy) - (own - start.own)
            return max(0, others) / (elapsed * Double(cores))
        }
    }

    static func cpuSnapshot() -> CPUSnapshot? {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard ticks > 0,
              let stat = readSmallFile("/proc/stat")?.split(separator: "\n").first, stat.hasPrefix("cpu "),
              let mine = readSmallFile("/proc/self/stat"), let close = mine.lastIndex(of: ")") else { return nil }
        let machine = stat.split(separator: " ").dropFirst().compactMap { Double($0) }
        // user nice system idle iowait irq softirq steal ...
        guard machine.count >= 8 else { return nil }
        let busy = machine[0] + machine[1] + machine[2] + machine[5] + machine[6] + machine[7]
        // After "pid (comm)": state is field 3, utime stime cutime cstime are fields 14-17.
        let afterState = Array(mine[mine.index(after: close)...].split(separator: " ").dropFirst())
        guard afterState.count >= 14 else { return nil }
        let own = afterState[10...13].compactMap { Double($0) }.reduce(0, +)
        return CPUSnapshot(machineBusy: busy / ticks, own: own / ticks, wall: now())
    }

    /// The 1-minute load average, from /proc/loadavg.
    static func loadAverage() -> Double? {
        readSmallFile("/proc/loadavg")?.split(separator: " ").first.flatMap { Double($0) }
    }

    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
