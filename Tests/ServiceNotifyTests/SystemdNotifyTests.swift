import CSystemdNotify
import Foundation
import ServiceNotify
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// SystemdNotify against a real datagram socket standing in for systemd's.
///
/// Serialized: NOTIFY_SOCKET is process-wide, and each test sets or clears it.
@Suite(.serialized)
struct SystemdNotifyTests {
    /// A bound socket at `address` with NOTIFY_SOCKET naming it; closed and the variable cleared after `body`.
    func withNotifySocket(_ address: String, _ body: (Int32) throws -> Void) throws {
        let fd = thumbd_sd_notify_listen(address)
        #expect(fd >= 0, "cannot bind \(address): errno \(-fd)")
        guard fd >= 0 else { return }
        defer {
            close(fd)
            unsetenv("NOTIFY_SOCKET")
        }
        setenv("NOTIFY_SOCKET", address, 1)
        try body(fd)
    }

    /// The next datagram's text, or nil when none arrives within `milliseconds`.
    func receive(_ fd: Int32, waitingMilliseconds milliseconds: Int32 = 2000) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = thumbd_sd_notify_receive(fd, &buffer, buffer.count, milliseconds)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<Int(length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func temporarySocketPath() throws -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder, folder.appendingPathComponent("notify.sock").path)
    }

    @Test func readyWithStatusSendsOneDatagramToAPathSocket() throws {
        let (folder, path) = try temporarySocketPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        try withNotifySocket(path) { fd in
            #expect(SystemdNotify.isSupervised)
            #expect(SystemdNotify.ready(status: "listening on 127.0.0.1:8080"))
            #expect(receive(fd) == "READY=1\nSTATUS=listening on 127.0.0.1:8080")
            // One message is one datagram: nothing else follows it.
            #expect(receive(fd, waitingMilliseconds: 100) == nil)
        }
    }

    @Test func stoppingReachesAnAbstractNamespaceSocket() throws {
        let name = "@thumbd-notify-test-\(UUID().uuidString)"
        try withNotifySocket(name) { fd in
            #expect(SystemdNotify.stopping(status: "draining"))
            #expect(receive(fd) == "STOPPING=1\nSTATUS=draining")
            #expect(SystemdNotify.stopping())
            #expect(receive(fd) == "STOPPING=1")
        }
    }

    @Test func statusTimeoutAndReloadMessages() throws {
        let name = "@thumbd-notify-test-\(UUID().uuidString)"
        try withNotifySocket(name) { fd in
            // A newline in the text would start a second assignment; it becomes a space.
            #expect(SystemdNotify.status("warming up\nREADY=1"))
            #expect(receive(fd) == "STATUS=warming up READY=1")
            #expect(SystemdNotify.extendTimeout(.milliseconds(1500)))
            #expect(receive(fd) == "EXTEND_TIMEOUT_USEC=1500000")
            #expect(SystemdNotify.reloading())
            let reload = try #require(receive(fd))
            let lines = reload.split(separator: "\n")
            #expect(lines.first == "RELOADING=1")
            #expect(lines.count == 2 && lines[1].hasPrefix("MONOTONIC_USEC=") && UInt64(lines[1].dropFirst(15)) != nil)
        }
    }

    @Test func withoutNotifySocketNothingIsSent() throws {
        let (folder, path) = try temporarySocketPath()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fd = thumbd_sd_notify_listen(path)
        try #require(fd >= 0)
        defer { close(fd) }
        unsetenv("NOTIFY_SOCKET")
        #expect(!SystemdNotify.isSupervised)
        #expect(!SystemdNotify.ready(status: "listening"))
        #expect(!SystemdNotify.stopping())
        #expect(thumbd_sd_notify("READY=1") == 0)
        #expect(receive(fd, waitingMilliseconds: 200) == nil)
    }

    @Test func failuresAreReportedNotThrown() throws {
        let (folder, path) = try temporarySocketPath()
        defer {
            try? FileManager.default.removeItem(at: folder)
            unsetenv("NOTIFY_SOCKET")
        }
        setenv("NOTIFY_SOCKET", path, 1) // nothing listens there
        #expect(!SystemdNotify.ready())
        #expect(thumbd_sd_notify("READY=1") == -ENOENT)
        setenv("NOTIFY_SOCKET", "vsock:2:1234", 1) // systemd 254's vsock form: not for a local daemon
        #expect(thumbd_sd_notify("READY=1") == -EAFNOSUPPORT)
        setenv("NOTIFY_SOCKET", "/" + String(repeating: "x", count: 200), 1)
        #expect(thumbd_sd_notify("READY=1") == -ENAMETOOLONG)
    }
}
