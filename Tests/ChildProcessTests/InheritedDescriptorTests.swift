#if canImport(Glibc)
import Glibc
#endif
import ChildProcess
import Foundation
import Testing

/// A child gets stdin, stdout and stderr and nothing else of this process: a socket a daemon in this
/// process holds must close when the daemon closes it, not when some child spawned meanwhile exits.
struct InheritedDescriptorTests {
    /// A socket that is not close-on-exec, as NIO's are.
    private static func inheritableSocket() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw CocoaError(.fileReadUnknown) }
        #expect(fcntl(socket, F_GETFD) & FD_CLOEXEC == 0)
        return socket
    }

    @Test func aRunChildSeesOnlyItsStandardDescriptors() throws {
        let socket = try Self.inheritableSocket()
        defer { close(socket) }
        let result = try ChildProcess.run("sh", ["-c", "[ -e /proc/self/fd/\(socket) ] && echo inherited || echo closed"])
        #expect(result.stdoutText == "closed\n", "\(result.stdoutText)\(result.stderrText)")
    }

    @Test func aBackgroundChildSeesOnlyItsStandardDescriptors() throws {
        let socket = try Self.inheritableSocket()
        defer { close(socket) }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-inherit-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let child = try BackgroundProcess(name: "sh", program: "/bin/sh",
                                          arguments: ["-c", "ls /proc/self/fd; [ -e /proc/self/fd/\(socket) ] && echo inherited || echo closed"],
                                          environment: ["PATH": "/usr/bin:/bin"], stdoutPath: log.path)
        #expect(child.wait(timeout: 30) == 0)
        #expect(child.stdoutText.hasSuffix("closed\n"), "\(child.stdoutText)")
    }
}
