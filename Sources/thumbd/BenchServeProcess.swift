#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A long-running child of `thumbd bench serve` (the origin, a daemon, nginx, wrk): started with
/// posix_spawn, its output in files, watched and stopped by its own pid only.
final class BenchServeProcess {
    let name: String
    let pid: pid_t
    let stdoutPath: String
    let stderrPath: String
    /// The exit status once reaped (128 + signal when a signal ended it).
    private(set) var exitStatus: Int32?
    /// User + system CPU seconds of the child's whole life (wait4), once reaped.
    private(set) var cpuSeconds: Double?

    /// `stderrPath` nil: stderr goes to the same file as stdout.
    init(name: String, program: String, arguments: [String], environment: [String: String],
         stdoutPath: String, stderrPath: String? = nil) throws {
        self.name = name
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath ?? stdoutPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let stderrPath, stderrPath != stdoutPath {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, program, &actions, nil, argv, envp)
        guard status == 0 else {
            throw ValidationErrorMessage("cannot start \(name) (\(program)): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    deinit {
        if exitStatus == nil { stop(SIGKILL, grace: 2) }
    }

    /// Reaps the child if it has ended.
    var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var raw: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &raw, WNOHANG, &usage)
        if reaped == pid {
            record(raw, usage)
            return false
        }
        return reaped == 0
    }

    private func record(_ raw: Int32, _ usage: rusage) {
        exitStatus = Self.decode(raw)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        cpuSeconds = seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Waits up to `timeout` seconds for the child to end; its exit status, or nil if still running.
    @discardableResult
    func wait(timeout: Double) -> Int32? {
        let deadline = BenchStats.now() + timeout
        while isRunning {
            if BenchStats.now() >= deadline { return nil }
            usleep(20_000)
        }
        return exitStatus
    }

    /// Sends `signal`, waits up to `grace` seconds, then SIGKILL. Returns the exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, grace: Double = 15) -> Int32? {
        guard isRunning else { return exitStatus }
        kill(pid, signal)
        if let status = wait(timeout: grace) { return status }
        kill(pid, SIGKILL)
        var raw: Int32 = 0
        var usage = rusage()
        while wait4(pid, &raw, 0, &usage) < 0 && errno == EINTR {}
        record(raw, usage)
        return exitStatus
    }

    var stdoutText: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// The last lines the child wrote to stderr, for error messages.
    func stderrTail(lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    private static func decode(_ raw: Int32) -> Int32 {
        let signalled = raw & 0x7F
        return signalled == 0 ? (raw >> 8) & 0xFF : 128 + signalled
    }
}

/// What the serving benchmark reads from /proc and the network stack: memory and CPU time of its
/// children (and of their threads), a free port, and programs on PATH.
enum BenchProc {
    /// A /proc/PID/status value in kibibytes (VmRSS, VmHWM, RssAnon...).
    static func statusKiB(_ pid: pid_t, _ key: String) -> Int? {
        guard let text = BenchStats.readSmallFile("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.dropFirst(key.count + 1).filter { $0.isNumber })
        }
        return nil
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

    /// The program on PATH, then in /usr/sbin and /sbin (nginx lives there, outside a user's PATH).
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        return folders.map { ($0 as NSString).appendingPathComponent(program) }.first { access($0, X_OK) == 0 }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on just now (the kernel picks it).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ValidationErrorMessage("socket failed: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = BenchHTTP.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw ValidationErrorMessage("cannot bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ValidationErrorMessage("getsockname failed") }
        return Int(UInt16(bigEndian: address.sin_port))
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
