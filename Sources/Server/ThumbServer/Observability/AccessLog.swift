import Dispatch
import Foundation
import Metrics
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The access log's line format (`server.access_log_format`).
public enum AccessLogFormat: String, Sendable, CaseIterable {
    /// The line thumbd has always written: `2026-11-25T01:28:48+0000 info thumbd: cache=memory
    /// code=- method=GET ms=0.04 path=/v1/thumbnail status=200 [ThumbServer] request`.
    case text
    /// One JSON object per line: `{"cache":"memory","code":null,"method":"GET","ms":0.04,
    /// "path":"/v1/thumbnail","status":200,"time":"2026-11-25T01:28:48+0000"}`.
    case json
}

/// The access log: one line per request, appended on the request's own thread to that thread's
/// buffer (one of eight stripes, so event loops never wait on one another) and written by a thread
/// of its own in batches (every 250 ms, or at once past 64 KiB), so that
/// no event loop ever waits for a write. When the writer falls behind (a full disk, a stalled
/// pipe) and 4 MiB are waiting, new lines are dropped and counted, never a request held up.
final class AccessLog: Sendable {
    typealias Format = AccessLogFormat

    static let flushBytes = 64 << 10
    static let maxPendingBytes = 4 << 20
    static let flushInterval = DispatchTimeInterval.milliseconds(250)

    /// Lines waiting, per stripe: each event loop thread appends to its own (by a hash of the
    /// thread), so the loops never wait on one another's lines.
    private struct Stripe: ~Copyable {
        var pending: [UInt8] = []
        var second = -1
        var stamp: [UInt8] = []
        var dropped = 0
    }

    /// A stripe behind its own lock (a `Mutex` cannot be an array's element).
    private final class StripeLock: Sendable {
        let mutex: Mutex<Stripe>
        init(_ stripe: consuming Stripe) { mutex = Mutex(stripe) }
        func withLock<R>(_ body: (inout Stripe) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    private struct Control: ~Copyable {
        var reopen = false
        var stopping = false
    }

    static let stripeCount = 8

    private struct Output: ~Copyable {
        var descriptor: Int32
        var lastWarning = -Double.infinity
        var unreported = 0
    }

    let format: Format
    /// nil: standard error.
    let path: String?
    private let stripes: [StripeLock]
    private let control = Mutex(Control())
    private let stopping = Atomic<Bool>(false)
    private let output: Mutex<Output>
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let dropped: Counter
    private let warn: @Sendable (String) -> Void

    /// Opens `path` for appending (created if missing) and starts the writer. Throws when the file
    /// cannot be opened, so a daemon with a log it cannot write does not start.
    init(format: Format, path: String?, metrics: any MetricsFactory, warn: @escaping @Sendable (String) -> Void) throws {
        self.format = format
        self.path = path
        self.warn = warn
        dropped = Counter(label: "thumbd_access_log_dropped_total", factory: metrics)
        output = Mutex(Output(descriptor: try path.map(Self.open) ?? STDERR_FILENO))
        stripes = (0..<Self.stripeCount).map { _ in
            var stripe = Stripe()
            stripe.pending.reserveCapacity(Self.flushBytes * 2)
            return StripeLock(stripe)
        }
        let thread = Thread { [self] in writeLoop() }
        thread.name = "thumbd-access-log"
        thread.start()
    }

    /// Appends one request's line; never blocks on I/O. `path` may hold a query: it is left out.
    func record(method: String, path: String, status: Int, elapsed: Duration, cache: String?, code: String?) {
        let now = time(nil)
        let route = path.utf8.firstIndex(of: UInt8(ascii: "?")).map { path.utf8[..<$0] } ?? path.utf8[...]
        let hundredths = Int((elapsed / .microseconds(10)).rounded())
        var droppedHere = false
        let closed = stopping.load(ordering: .relaxed)
        let signal = stripes[Self.stripeOfThisThread].withLock { s -> Bool in
            // Past the limit, or after close: counted here, since the writer may be the one stuck.
            guard s.pending.count < Self.maxPendingBytes / Self.stripeCount, !closed else {
                s.dropped += 1
                droppedHere = true
                return false
            }
            if Int(now) != s.second {
                s.second = Int(now)
                s.stamp = Self.timestamp(now)
            }
            let before = s.pending.count
            switch format {
            case .text: Self.appendText(&s.pending, stamp: s.stamp, method: method, route: route, status: status,
                                        hundredths: hundredths, cache: cache, code: code)
            case .json: Self.appendJSON(&s.pending, stamp: s.stamp, method: method, route: route, status: status,
                                        hundredths: hundredths, cache: cache, code: code)
            }
            return before < Self.flushBytes && s.pending.count >= Self.flushBytes
        }
        if droppedHere { dropped.increment() }
        if signal { wake.signal() }
    }

    /// The calling thread's stripe: a multiplicative hash of its pthread handle (handles of
    /// threads are far apart in memory, so their low bits alone would collide).
    private static var stripeOfThisThread: Int {
        let handle = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
        return Int((handle &* 0x9E37_79B9_7F4A_7C15) >> 61) % stripeCount
    }

    /// Opens the file again (after logrotate moved it): on SIGHUP.
    func reopen() {
        control.withLock { $0.reopen = true }
        wake.signal()
    }

    /// Writes what is waiting and stops the writer, waiting for it at most `timeout`: a writer stuck
    /// on a stalled pipe must not hold the daemon's shutdown (what it had not written is lost).
    func close(timeout: DispatchTimeInterval = .seconds(2)) {
        let first = control.withLock { c -> Bool in
            defer { c.stopping = true }
            return !c.stopping
        }
        guard first else { return }
        stopping.store(true, ordering: .relaxed)
        wake.signal()
        guard finished.wait(timeout: .now() + timeout) == .success else {
            warn("the access log's writer did not finish within the shutdown's wait; its last lines are lost")
            return
        }
        output.withLock { o in
            if o.descriptor != STDERR_FILENO { Glibc.close(o.descriptor) }
        }
    }

    /// Lines dropped since the start because the writer was behind.
    var droppedLines: Int { stripes.reduce(0) { total, stripe in total + stripe.withLock { $0.dropped } } }

    // MARK: The writer

    private func writeLoop() {
        var spares = [[UInt8]](repeating: [], count: Self.stripeCount)
        for index in spares.indices { spares[index].reserveCapacity(Self.flushBytes * 2) }
        var reported = 0
        while true {
            _ = wake.wait(timeout: .now() + Self.flushInterval)
            let (reopen, stopping) = control.withLock { c -> (Bool, Bool) in
                defer { c.reopen = false }
                return (c.reopen, c.stopping)
            }
            if reopen, let path { reopenFile(path) }
            var droppedNow = 0
            for index in stripes.indices {
                var batch = spares[index]
                spares[index] = []
                stripes[index].withLock { s in
                    // Swapped, not copied: the buffer the requests append to stays uniquely owned.
                    swap(&batch, &s.pending)
                    droppedNow += s.dropped
                }
                if !batch.isEmpty { write(batch) }
                batch.removeAll(keepingCapacity: true)
                spares[index] = batch
            }
            if droppedNow > reported {
                warnOncePerMinute("the access log's writer fell behind: \(droppedNow - reported) lines dropped")
                reported = droppedNow
            }
            if stopping {
                // Lines recorded while the last batches were written.
                for stripe in stripes {
                    let rest = stripe.withLock { s -> [UInt8] in
                        defer { s.pending = [] }
                        return s.pending
                    }
                    if !rest.isEmpty { write(rest) }
                }
                finished.signal()
                return
            }
        }
    }

    /// Writes whole lines, at most PIPE_BUF bytes a call: on a pipe or journald's socket, shared with
    /// the daemon's other log lines on stderr, each write is then atomic and no line is split.
    private func write(_ bytes: [UInt8]) {
        let descriptor = output.withLock { $0.descriptor }
        let chunkLimit = Int(PIPE_BUF)
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var start = 0
            while start < raw.count {
                var end = min(raw.count, start + chunkLimit)
                if end < raw.count, let lastNewline = bytes[start..<end].lastIndex(of: UInt8(ascii: "\n")) { end = lastNewline + 1 }
                var offset = start
                while offset < end {
                    let written = Glibc.write(descriptor, base + offset, end - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        let reason = String(cString: strerror(errno))
                        warnOncePerMinute("the access log could not be written (\(path ?? "stderr")): \(reason); lines lost")
                        return
                    }
                }
                start = end
            }
        }
    }

    private func reopenFile(_ path: String) {
        do {
            let fresh = try Self.open(path)
            let old = output.withLock { o -> Int32 in
                defer { o.descriptor = fresh }
                return o.descriptor
            }
            Glibc.close(old)
        } catch {
            warn("the access log \(path) could not be opened again: \(error); still writing to the old file")
        }
    }

    private func warnOncePerMinute(_ message: String) {
        let now = Date().timeIntervalSince1970
        let line = output.withLock { o -> String? in
            guard now - o.lastWarning >= 60 else {
                o.unreported += 1
                return nil
            }
            defer { (o.lastWarning, o.unreported) = (now, 0) }
            return o.unreported > 0 ? "\(message) (and \(o.unreported) more such warnings in the last minute)" : message
        }
        if let line { warn(line) }
    }

    static func open(_ path: String) throws -> Int32 {
        let descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw AccessLogError(message: "cannot open the access log \(path): \(String(cString: strerror(errno)))")
        }
        return descriptor
    }
}

struct AccessLogError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
