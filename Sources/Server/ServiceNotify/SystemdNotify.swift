import CSystemdNotify
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tells systemd (a `Type=notify` unit) how the daemon is doing, through sd_notify's datagram.
///
/// Outside systemd (no NOTIFY_SOCKET) every call does nothing. A failed send is not an error for
/// the daemon: the service manager may have gone, and serving matters more than telling it so.
/// Each call answers whether the message was sent, for the few callers that care.
public enum SystemdNotify {
    /// Whether a service manager asked to be told (NOTIFY_SOCKET is set).
    public static var isSupervised: Bool {
        thumbd_sd_notify_socket_is_set() != 0
    }

    /// READY=1: the daemon is listening and its cache is open; systemd starts the units after it.
    @discardableResult
    public static func ready(status: String? = nil) -> Bool {
        send(["READY=1"] + statusLine(status))
    }

    /// STOPPING=1: the daemon has begun its orderly shutdown.
    @discardableResult
    public static func stopping(status: String? = nil) -> Bool {
        send(["STOPPING=1"] + statusLine(status))
    }

    /// RELOADING=1, with the monotonic time systemd asks for since version 253 (older ones ignore it).
    /// The daemon must send `ready()` again when the reload is done.
    @discardableResult
    public static func reloading() -> Bool {
        send(["RELOADING=1", "MONOTONIC_USEC=\(monotonicMicroseconds())"])
    }

    /// STATUS=…: a line `systemctl status` shows.
    @discardableResult
    public static func status(_ text: String) -> Bool {
        send(statusLine(text))
    }

    /// EXTEND_TIMEOUT_USEC=…: asks for this much more time than the unit's start or stop timeout,
    /// counted from now; for a start or a drain that is slow but still progressing.
    @discardableResult
    public static func extendTimeout(_ duration: Duration) -> Bool {
        send(["EXTEND_TIMEOUT_USEC=\(microseconds(duration))"])
    }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        // Beyond what UInt64 microseconds hold (half a million years) is "no limit" to systemd anyway.
        guard seconds < Int64(UInt64.max / 1_000_000) else { return UInt64.max }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }

    /// A newline would end the assignment early and turn the rest into another one.
    private static func statusLine(_ text: String?) -> [String] {
        guard let text else { return [] }
        return ["STATUS=" + text.map { $0.isNewline ? " " : String($0) }.joined()]
    }

    private static func send(_ assignments: [String]) -> Bool {
        thumbd_sd_notify(assignments.joined(separator: "\n")) == 1
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
