#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ChildProcess
import ConsoleText
import Foundation

/// The serving benchmark's children are `BackgroundProcess`es.
typealias BenchServeProcess = BackgroundProcess

/// What the serving benchmark reads from /proc and the network stack: memory and CPU time of its
/// children (and of their threads), a free port, and programs on PATH.
enum BenchProc {
    /// A /proc/PID/status number: kibibytes for VmRSS, VmHWM, RssAnon...; a count for Threads.
    static func statusNumber(_ pid: pid_t, _ key: String) -> Int? {
        guard let text = BenchStats.readSmallFile("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.dropFirst(key.count + 1).filter { $0.isNumber })
        }
        return nil
    }

    /// Descriptors `pid` has open (the entries of /proc/PID/fd); nil once it has ended.
    static func openFileCount(_ pid: pid_t) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// Name and the fields after the name of a /proc stat file; field N of proc(5) is at index N - 3.
    private static func stat(_ path: String) -> (name: String, fields: [Substring])? {
        guard let text = BenchStats.readSmallFile(path), let open = text.firstIndex(of: "("),
              let close = text.lastIndex(of: ")") else { return nil }
        let name = String(text[text.index(after: open)..<close])
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12 else { return nil }
        return (name, fields)
    }

    private static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// User + system CPU seconds of a process (all its threads).
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let s = stat("/proc/\(pid)/stat"), let user = Double(s.fields[11]), let system = Double(s.fields[12]) else { return nil }
        return (user + system) / ticks
    }

    struct ThreadCPU {
        var name: String
        var seconds: Double
    }

    /// CPU seconds of each thread of `pid`, by thread id.
    static func threads(_ pid: pid_t) -> [Int: ThreadCPU] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var result: [Int: ThreadCPU] = [:]
        for entry in names {
            guard let tid = Int(entry), let s = stat("/proc/\(pid)/task/\(entry)/stat"),
                  let user = Double(s.fields[11]), let system = Double(s.fields[12]) else { continue }
            result[tid] = ThreadCPU(name: s.name, seconds: (user + system) / ticks)
        }
        return result
    }

    struct ProcessTime {
        var parent: pid_t
        var name: String
        /// User + system seconds of the process and of its reaped children.
        var seconds: Double
    }

    /// Every process on the machine (kernel threads included), for telling the benchmark's own
    /// load from everything else. Counting reaped children keeps a process that exits inside a
    /// window counted (in its parent).
    static func allProcesses() -> [pid_t: ProcessTime] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var result: [pid_t: ProcessTime] = [:]
        for entry in entries {
            guard let pid = pid_t(entry), let s = stat("/proc/\(entry)/stat"), s.fields.count > 14,
                  let parent = pid_t(s.fields[1]) else { continue }
            let seconds = s.fields[11...14].compactMap { Double($0) }.reduce(0, +) / ticks
            result[pid] = ProcessTime(parent: parent, name: s.name, seconds: seconds)
        }
        return result
    }

    /// Processes whose parent is `pid` (nginx's workers).
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let candidate = pid_t(entry), let s = stat("/proc/\(entry)/stat"), pid_t(s.fields[1]) == pid else { return nil }
            return candidate
        }
    }

    static func which(_ program: String) -> String? { BackgroundProcess.which(program) }

    static func freePort() throws -> Int {
        do { return try BackgroundProcess.freePort() } catch { throw ValidationErrorMessage("\(error)") }
    }
}

/// CPU time of the processes under test at one instant; two of them make a `BenchCPUUsage`.
struct BenchCPUSnapshot {
    var wall: Double
    /// Busy seconds of every core together (from /proc/stat).
    var machineBusy: Double?
    /// CPU seconds by label (a label may cover several processes, e.g. nginx's workers).
    var groups: [String: Double]
    /// The daemon's threads, by thread id.
    var threads: [Int: BenchProc.ThreadCPU]
    var all: [pid_t: BenchProc.ProcessTime]

    static func take(groups: [(String, [pid_t])], threadsOf daemon: pid_t?) -> BenchCPUSnapshot {
        var totals: [String: Double] = [:]
        for (label, pids) in groups {
            totals[label, default: 0] += pids.compactMap(BenchProc.cpuSeconds).reduce(0, +)
        }
        return BenchCPUSnapshot(wall: BenchStats.now(), machineBusy: BenchStats.cpuSnapshot()?.machineBusy, groups: totals,
                                threads: daemon.map(BenchProc.threads) ?? [:], all: BenchProc.allProcesses())
    }
}

/// Where the CPU went between two snapshots, in cores (CPU seconds per wall second).
struct BenchCPUUsage: Encodable {
    /// Other processes using more than this (cores) during a measured run make it worth a note.
    static let noteworthyOthersCores = 0.1

    struct Share: Encodable {
        var name: String
        var cores: Double
    }

    var seconds: Double
    /// Busy share of all cores, any process (100 = every core busy).
    var machineBusyPercent: Double?
    var processes: [Share]
    /// The daemon's threads, summed by thread name, busiest first.
    var daemonThreads: [Share]
    /// Everything that is neither this benchmark nor a process it started (other work on the
    /// machine, kernel threads): the noise in the figures.
    var othersCores: Double
    /// The busiest of those, by process name.
    var others: [Share]

    init(from start: BenchCPUSnapshot, to end: BenchCPUSnapshot, cores: Int) {
        seconds = max(1e-9, end.wall - start.wall)
        let wall = seconds
        if let a = start.machineBusy, let b = end.machineBusy {
            machineBusyPercent = 100 * (b - a) / (wall * Double(max(1, cores)))
        }
        processes = end.groups.keys.sorted().map { label in
            Share(name: label, cores: (end.groups[label, default: 0] - start.groups[label, default: 0]) / wall)
        }
        var byName: [String: Double] = [:]
        for (tid, thread) in end.threads {
            byName[thread.name, default: 0] += (thread.seconds - (start.threads[tid]?.seconds ?? 0)) / wall
        }
        daemonThreads = byName.map { Share(name: $0.key, cores: $0.value) }
            .filter { $0.cores >= 0.005 }
            .sorted { $0.cores > $1.cores }

        let me = getpid()
        func ours(_ pid: pid_t) -> Bool {
            var current = pid
            for _ in 0..<64 {
                if current == me { return true }
                guard let parent = end.all[current]?.parent ?? start.all[current]?.parent, parent > 0 else { return false }
                current = parent
            }
            return false
        }
        var elsewhere: [String: Double] = [:]
        for (pid, process) in end.all where !ours(pid) {
            elsewhere[process.name, default: 0] += process.seconds - (start.all[pid]?.seconds ?? 0)
        }
        // A process that ended in the window is counted in its parent, whole life included: take
        // away what it had used before the window.
        for (pid, process) in start.all where end.all[pid] == nil && !ours(pid) {
            let parent = start.all[process.parent]?.name ?? process.name
            elsewhere[parent, default: 0] -= process.seconds
        }
        othersCores = max(0, elsewhere.values.reduce(0, +)) / wall
        others = elsewhere.map { Share(name: $0.key, cores: $0.value / wall) }
            .filter { $0.cores >= 0.02 }
            .sorted { $0.cores > $1.cores }
    }

    /// "thumbd 1.21, wrk 0.70" and so on.
    var processSummary: String {
        processes.map { "\($0.name) \(TextTable.fixed($0.cores, 2))" }.joined(separator: ", ")
    }

    var othersSummary: String {
        TextTable.fixed(othersCores, 2) + (others.isEmpty ? "" : " (" + others.prefix(4).map { "\($0.name) \(TextTable.fixed($0.cores, 2))" }.joined(separator: ", ") + ")")
    }

    var threadSummary: String {
        daemonThreads.prefix(8).map { "\($0.name) \(TextTable.fixed($0.cores, 2))" }.joined(separator: ", ")
    }
}

extension BenchCPUUsage {
    /// wrk using at least this much of a core while the machine is this busy: the load generator,
    /// not the server, is what holds the figure down.
    static let generatorCores = 0.75
    static let saturatedBusyPercent = 90.0

    func cores(of process: String) -> Double? { processes.first { $0.name == process }?.cores }

    /// The busy share of all cores as the processes' own counters (/proc/PID/stat) add up: ours and
    /// everyone else's. The machine-wide counter (/proc/stat) undercounts in this kind of VM
    /// while cores go idle and wake often (it read 6% busy where nginx and wrk used 0.8 cores).
    func busyPercent(cores: Int) -> Double {
        100 * (processes.map(\.cores).reduce(0, +) + othersCores) / Double(max(1, cores))
    }

    /// The load generator held the figure down: its req/s is wrk's limit as much as the server's.
    func isGeneratorBound(cores: Int) -> Bool {
        guard let wrk = self.cores(of: "wrk") else { return false }
        return wrk >= Self.generatorCores && busyPercent(cores: cores) >= Self.saturatedBusyPercent
    }
}
