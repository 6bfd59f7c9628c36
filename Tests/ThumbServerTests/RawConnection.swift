import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whole exchanges on a fresh connection: the bytes sent, then everything until the server closes.
enum RawHTTP {
    static func exchange(port: Int, _ text: String, timeout: Duration = .seconds(30)) async throws -> String {
        try await exchange(port: port, bytes: Array(text.utf8), timeout: timeout)
    }

    static func exchange(port: Int, bytes: [UInt8], timeout: Duration = .seconds(30)) async throws -> String {
        let connection = try RawConnection(port: port, timeoutSeconds: Int(timeout.components.seconds))
        defer { connection.close() }
        try connection.send(bytes: bytes)
        return String(decoding: await connection.readUntilClosed(), as: UTF8.self)
    }
}

/// One client connection, used request after request (keep-alive), read response by response.
final class RawConnection: @unchecked Sendable {
    struct Response {
        var head: String
        var body: [UInt8]
        var status: Int { Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0 }
        var problemCode: String? {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["code"] as? String
        }

        func header(_ name: String) -> String? {
            for line in head.components(separatedBy: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == name.lowercased() {
                    return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    private var fd: Int32
    /// The socket, for a test that reads it by hand.
    var descriptor: Int32 { fd }
    private var pending: [UInt8] = []

    /// `receiveBuffer`: a small SO_RCVBUF, set before connecting, makes a client that reads slowly.
    init(port: Int, timeoutSeconds: Int = 30, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw TestFailure("connect failed")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws { try send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw TestFailure("send failed") }
            sent += count
        }
    }

    /// The next response: its head, and a body of its Content-Length. Throws if the server closes
    /// the connection (or says nothing for the timeout) before it is whole. Waits on a thread of its
    /// own: a blocked thread of the concurrency pool could starve the daemon under test.
    func response() async throws -> Response {
        try await onThread { try self.blockingResponse() }
    }

    private func blockingResponse() throws -> Response {
        while true {
            if let end = pending.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                var response = Response(head: head, body: [])
                let length = Int(response.header("content-length") ?? "0") ?? 0
                if pending.count - end.upperBound >= length {
                    response.body = Array(pending[end.upperBound..<end.upperBound + length])
                    pending.removeFirst(end.upperBound + length)
                    return response
                }
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { throw TestFailure("the server closed the connection (or went quiet) before a whole response") }
            pending.append(contentsOf: buffer[0..<count])
        }
    }

    /// Sends what the socket takes now without waiting; the number of bytes taken.
    @discardableResult
    func sendWithoutWaiting(_ text: String) -> Int {
        let bytes = Array(text.utf8)
        let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return max(0, count)
    }

    /// Whether the server closes the connection within `timeout`, reading (and dropping) whatever
    /// it sends meanwhile.
    func closedByServer(within timeout: Duration) async -> Bool {
        let fd = fd
        return await withCheckedContinuation { continuation in
            Thread {
                let deadline = ContinuousClock.now + timeout
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var closed = false
                while ContinuousClock.now < deadline {
                    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                    let left = Int32(max(1, (deadline - ContinuousClock.now) / .milliseconds(1)))
                    guard poll(&poller, 1, min(left, 200)) > 0 else { continue }
                    let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                        closed = true
                        break
                    }
                }
                continuation.resume(returning: closed)
            }.start()
        }
    }

    /// Everything the server sends until it closes the connection (or says nothing for the timeout).
    func readUntilClosed() async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread {
                var received = self.pending
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = recv(self.fd, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received.append(contentsOf: buffer[0..<count])
                }
                continuation.resume(returning: received)
            }.start()
        }
    }

    /// Closes with a reset (SO_LINGER 0): nothing is left in TIME_WAIT.
    func reset() {
        guard fd >= 0 else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
