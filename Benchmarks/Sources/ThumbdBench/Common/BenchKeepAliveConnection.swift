#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One kept-alive HTTP/1.1 connection to 127.0.0.1, blocking, used by one thread: the failover
/// and soak loads need every request's own outcome, which wrk does not give. A failed request
/// closes the connection; the next one opens a new connection, as a browser would.
final class BenchKeepAliveConnection {
    /// A kept-alive connection the server had closed before this request reached it: no byte of an
    /// answer came. Browsers and HTTP libraries send such a request again on a new connection
    /// (RFC 9112, 9.3.1); a load that reports every failure must tell these apart.
    struct ClosedWhileIdle: Error, CustomStringConvertible {
        var underlying: String
        var description: String { "the kept-alive connection was closed while idle: \(underlying)" }
    }

    let port: Int
    let timeout: Double
    private var socketDescriptor: Int32 = -1
    /// Bytes received past the last answer (none in practice: one request at a time).
    private var pending: [UInt8] = []
    /// Whole answers read on the open connection: a connection that has answered can have been
    /// closed by the server while idle.
    private var answersOnConnection = 0

    init(port: Int, timeout: Double) {
        self.port = port
        self.timeout = timeout
    }

    deinit { disconnect() }

    func disconnect() {
        if socketDescriptor >= 0 { close(socketDescriptor) }
        socketDescriptor = -1
        pending.removeAll()
        answersOnConnection = 0
    }

    func get(_ path: String) throws -> BenchHTTP.Response {
        try request("GET", path)
    }

    /// Sends one request (`headers` as "Name: value" lines, a body with its Content-Length) and
    /// reads its whole answer.
    func request(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = []) throws -> BenchHTTP.Response {
        if socketDescriptor < 0 { socketDescriptor = try BenchHTTP.openConnection(port: port, timeout: timeout, noDelay: true) }
        let reused = answersOnConnection > 0
        var receivedAny = !pending.isEmpty
        do {
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: thumbd-bench\r\n"
            for line in headers { head += line + "\r\n" }
            if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
            try BenchHTTP.sendAll(socketDescriptor, Array((head + "\r\n").utf8) + body)
            let response = try BenchHTTP.parse(try receiveOneAnswer(receivedAny: &receivedAny), what: "127.0.0.1:\(port)\(path)")
            answersOnConnection += 1
            if response.headers["connection"]?.lowercased() == "close" { disconnect() }
            return response
        } catch {
            disconnect()
            if reused && !receivedAny { throw ClosedWhileIdle(underlying: "\(error)") }
            throw error
        }
    }

    /// Reads until one whole answer is in: its head, then Content-Length bytes or the last chunk.
    private func receiveOneAnswer(receivedAny: inout Bool) throws -> [UInt8] {
        let headEnd: [UInt8] = [13, 10, 13, 10]
        var buffer = [UInt8](repeating: 0, count: 65536)
        var received = pending
        pending = []
        while true {
            if let head = received.firstRange(of: headEnd) {
                let headText = String(decoding: received[..<head.lowerBound], as: UTF8.self).lowercased()
                if BenchHTTP.hasNoBody(statusLine: headText.prefix { $0 != "\r" }) {
                    pending = Array(received[head.upperBound...])
                    return Array(received[..<head.upperBound])
                } else if let length = Self.contentLength(headText) {
                    let total = head.upperBound + length
                    if received.count >= total {
                        pending = Array(received[total...])
                        return Array(received[..<total])
                    }
                } else if headText.contains("transfer-encoding: chunked") {
                    if let last = received[head.upperBound...].firstRange(of: Array("0\r\n\r\n".utf8)) {
                        return Array(received[..<last.upperBound])
                    }
                } else {
                    return received  // no body (304, or a head-only answer)
                }
            }
            let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw ValidationErrorMessage("no answer within \(timeout) s: \(String(cString: strerror(errno)))") }
            if count == 0 { throw ValidationErrorMessage("connection closed after \(received.count) bytes of the answer") }
            receivedAny = true
            received += buffer[0..<count]
        }
    }

    private static func contentLength(_ lowercasedHead: String) -> Int? {
        for line in lowercasedHead.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
