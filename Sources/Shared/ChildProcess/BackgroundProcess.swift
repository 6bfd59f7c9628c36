#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A long-running child (a daemon, nginx, an origin, wrk) for the benchmarks and the fleet tests:
/// started with posix_spawn, its output in files, watched and stopped by its own pid only.
public final class BackgroundProcess: Sendable {
    public let name: String
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    /// The exit status once reaped (128 + signal when a signal ended it).
    public var exitStatus: Int32? { ended.withLock { $0.status } }
    /// User + system CPU seconds of the child's whole life (wait4), once reaped.
    public var cpuSeconds: Double? { ended.withLock { $0.cpuSeconds } }
    /// Set once, when the child is reaped (by whichever thread sees it end first).
    private let ended = Mutex<(status: Int32?, cpuSeconds: Double?)>((nil, nil))

    /// `stderrPath` nil: stderr goes to the same file as stdout.
    public init(name: String, program: String, arguments: [String], environment: [String: String],
         stdoutPath: String, stderrPath: String? = nil) throws {
        self.name = name
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath ?? stdoutPath
        let actions = SpawnFileActions()
        actions.open(0, "/dev/null", O_RDONLY)
        actions.open(1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC)
        if let stderrPath, stderrPath != stdoutPath {
            actions.open(2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC)
        } else {
            actions.duplicate(1, onto: 2)
        }
        actions.closeTheRest()
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        let attributes = SpawnAttributes()
        let (status, child) = Termination.spawning {
            var child: pid_t = 0
            return (posix_spawn(&child, program, &actions.raw, &attributes.raw, argv, envp), child)
        }
        guard status == 0 else {
            throw ChildProcessError.cannotStart("\(name) (\(program))", status)
        }
        pid = child
    }

    deinit {
        if exitStatus == nil { stop(SIGKILL, grace: 2) }
    }

    /// Reaps the child if it has ended.
    public var isRunning: Bool {
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
        let status = ChildProcess.exitStatus(raw)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime)
        ended.withLock { $0 = (status, cpu) }
        Termination.ended(pid)
    }

    /// Waits up to `timeout` seconds for the child to end; its exit status, or nil if still running.
    @discardableResult
    public func wait(timeout: Double) -> Int32? {
        let deadline = ChildProcess.monotonicSeconds() + timeout
        while isRunning {
            if ChildProcess.monotonicSeconds() >= deadline { return nil }
            usleep(20_000)
        }
        return exitStatus
    }

    /// Sends `signal`, waits up to `grace` seconds, then SIGKILL. Returns the exit status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, grace: Double = 15) -> Int32? {
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

    public var stdoutText: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// The last lines the child wrote to stderr, for error messages.
    public func stderrTail(lines: Int = 15) -> String {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// The program on PATH, then in /usr/sbin and /sbin (nginx lives there, outside a user's PATH).
    public static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        return folders.map { ($0 as NSString).appendingPathComponent(program) }.first { access($0, X_OK) == 0 }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on just now (the kernel picks it).
    public static func freePort() throws -> Int {
        let (fd, port) = try boundSocket()
        close(fd)
        return port
    }

    /// A TCP socket bound to a port on 127.0.0.1 the kernel picks, not listening.
    static func boundSocket() throws -> (descriptor: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ChildProcessError(description: "socket failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw ChildProcessError(description: "cannot bind 127.0.0.1:0: \(String(cString: strerror(errno)))")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            close(fd)
            throw ChildProcessError(description: "getsockname failed")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// A port on 127.0.0.1 that refuses connections for as long as this lives: bound and never
/// listened on, so no other process can take it meanwhile (a port merely found free once can be
/// taken by a test running beside, which then answers in its place).
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try BackgroundProcess.boundSocket()
    }

    deinit { close(descriptor) }
}

/// A port on 127.0.0.1 that takes connections and never answers, for as long as this lives:
/// listened on and never accepted from, so the kernel completes each handshake and nothing more
/// (a server that hangs).
public final class SilentPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try BackgroundProcess.boundSocket()
        guard listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw ChildProcessError(description: "listen failed: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }
}
