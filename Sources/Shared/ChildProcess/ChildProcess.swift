#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished child process did, including its peak memory as the kernel counted it.
public struct ChildProcessResult: Sendable {
    /// The exit status, or 128 + signal number when a signal ended it.
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: [UInt8]
    /// Peak resident set size (ru_maxrss of this child alone, via wait4). Linux carries the parent's
    /// peak RSS into a spawned child across exec, so this never reads below the parent's RSS at
    /// spawn time: measure from a small parent, or bound memory with an rlimit instead.
    public var maxRSSBytes: Int
    public var wallSeconds: Double
    public var timedOut: Bool

    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String

    /// posix_spawn's failure, or a start refused because the program is being stopped by a signal.
    static func cannotStart(_ what: String, _ status: Int32) -> ChildProcessError {
        let reason = status == Termination.refusedWhileStopping
            ? "the program is stopping on a signal" : String(cString: strerror(status))
        return ChildProcessError(description: "cannot start \(what): \(reason)")
    }
}

/// Runs a program (found on PATH when the name has no slash) and collects everything it did.
/// Used by the benchmark to time and weigh peers, and by tests to run the CLI under a time limit.
public enum ChildProcess {
    public static func run(_ program: String, _ arguments: [String], timeoutSeconds: Double? = nil,
                           standardInput: String? = nil) throws -> ChildProcessResult {
        // Close-on-exec, so a child that another thread spawns later does not inherit these pipes
        // and hold them open (that would delay our EOF until that child exits). dup2 onto 1 and 2
        // clears the flag for our own child. (Swift's Glibc module does not export pipe2.)
        var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw ChildProcessError(description: "pipe failed") }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        let actions = SpawnFileActions()
        actions.open(0, standardInput ?? "/dev/null", O_RDONLY)
        actions.duplicate(outPipe[1], onto: 1)
        actions.duplicate(errPipe[1], onto: 2)
        actions.closeTheRest()

        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let attributes = SpawnAttributes()
        let start = monotonicSeconds()
        let (spawnStatus, pid) = Termination.spawning {
            var pid: pid_t = 0
            return (posix_spawnp(&pid, program, &actions.raw, &attributes.raw, argv, environ), pid)
        }
        close(outPipe[1])
        close(errPipe[1])
        guard spawnStatus == 0 else {
            close(outPipe[0]); close(errPipe[0])
            throw ChildProcessError.cannotStart(program, spawnStatus)
        }
        defer { Termination.ended(pid) }

        var stdout: [UInt8] = [], stderr: [UInt8] = []
        var open = [outPipe[0], errPipe[0]]
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var waitMs: Int32 = 1000
            if let timeoutSeconds {
                let left = timeoutSeconds - (monotonicSeconds() - start)
                if left <= 0 {
                    timedOut = true
                    kill(pid, SIGKILL)
                    break
                }
                waitMs = Int32(min(1000, max(1, left * 1000)))
            }
            guard poll(&fds, nfds_t(fds.count), waitMs) >= 0 || errno == EINTR else { break }
            for entry in fds where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if entry.fd == outPipe[0] { stdout += buffer[0..<count] } else { stderr += buffer[0..<count] }
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        close(outPipe[0])
        close(errPipe[0])

        var rawStatus: Int32 = 0
        var usage = rusage()
        while wait4(pid, &rawStatus, 0, &usage) < 0 && errno == EINTR {}
        let wall = monotonicSeconds() - start
        return ChildProcessResult(status: exitStatus(rawStatus), stdout: stdout, stderr: stderr,
                                  maxRSSBytes: Int(usage.ru_maxrss) * 1024, wallSeconds: wall, timedOut: timedOut)
    }

    /// Whether a program can be found on PATH (peers of the benchmark are optional).
    public static func isInstalled(_ program: String) -> Bool {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { access("\($0)/\(program)", X_OK) == 0 }
    }

    /// A wait status as a shell reports it: the exit code, or 128 + the signal that ended the child.
    static func exitStatus(_ raw: Int32) -> Int32 {
        let signalled = raw & 0x7F
        return signalled == 0 ? (raw >> 8) & 0xFF : 128 + signalled
    }

    static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
