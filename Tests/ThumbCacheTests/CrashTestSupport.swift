import Foundation
import TestSupport
import ThumbCache
#if canImport(Glibc)
import Glibc
#endif

extension CrashPayload {
    static func check(_ bytes: [UInt8], key: CacheKey) -> UInt64? { check(bytes, digest: key.digest) }
}


/// The crash writer, running: its pid, a pipe to its standard input, and one from its output.
final class CrashWriterProcess {
    let pid: pid_t
    private var input: Int32
    private let output: Int32
    private var buffered: [UInt8] = []
    private var reaped: Int32?

    /// The helper sits next to the test binary in the build products folder.
    static let executable = TestPaths.builtProduct("thumbd-cache-crash-writer")

    init(_ arguments: [String]) throws {
        var inPipe: [Int32] = [0, 0], outPipe: [Int32] = [0, 0]
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0 else { throw CrashTestError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        for fd in inPipe + outPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([Self.executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, Self.executable, &actions, nil, argv, environ)
        close(inPipe[0])
        close(outPipe[1])
        guard status == 0 else {
            close(inPipe[1])
            close(outPipe[0])
            throw CrashTestError("cannot start \(Self.executable): \(String(cString: strerror(status)))")
        }
        self.pid = pid
        input = inPipe[1]
        output = outPipe[0]
    }

    deinit {
        if reaped == nil {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
        if input >= 0 { close(input) }
        close(output)
    }

    /// The next line of output, or nil at end of output or after `timeout` seconds.
    func readLine(timeout: Double = 120) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(1000, max(1, left * 1000))))
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count > 0 {
                buffered += chunk[..<count]
            } else if count == 0 || errno != EINTR {
                return nil
            }
        }
    }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
    }

    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// SIGKILL, then reap. Returns the wait status decoded: 128 + signal, or the exit code.
    @discardableResult
    func killNow() -> Int32 {
        kill(pid, SIGKILL)
        return waitForExit()
    }

    func waitForExit() -> Int32 {
        if let reaped { return reaped }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let signal = raw & 0x7F
        let status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        reaped = status
        return status
    }
}

struct CrashTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
