#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A blocking HTTP/1.1 GET to 127.0.0.1, one connection per request: enough for the serving
/// benchmark's set-up (readiness, warming the cache, fetching thumbnails, scraping /metrics),
/// never for the measured load, which wrk makes.
enum BenchHTTP {
    struct Response {
        var status: Int
        /// Lower-cased names.
        var headers: [String: String]
        var body: [UInt8]

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        return address
    }

    /// A TCP connection to 127.0.0.1:`port` whose reads and writes give up after `timeout` seconds.
    static func openConnection(port: Int, timeout: Double, noDelay: Bool = false) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ValidationErrorMessage("socket failed: \(String(cString: strerror(errno)))") }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int(timeout.truncatingRemainder(dividingBy: 1) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        if noDelay {
            var on: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ValidationErrorMessage("cannot connect to 127.0.0.1:\(port): \(reason)")
        }
        return fd
    }

    /// Writes all of `bytes` to `fd`.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw ValidationErrorMessage("send failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    static func get(port: Int, path: String, timeout: Double = 60) throws -> Response {
        try request("GET", port: port, path: path, timeout: timeout)
    }

    /// Any method, with extra header lines ("Name: value") and a body (sent with its length).
    static func request(_ method: String, port: Int, path: String, headers: [String] = [], body: [UInt8] = [],
                        timeout: Double = 60) throws -> Response {
        let fd = try openConnection(port: port, timeout: timeout)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUser-Agent: thumbd-bench\r\nConnection: close\r\n"
        for line in headers { head += line + "\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        try sendAll(fd, Array((head + "\r\n").utf8) + body)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                throw ValidationErrorMessage("no answer from 127.0.0.1:\(port)\(path) within \(timeout) s: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            received += buffer[0..<count]
        }
        return try parse(received, what: "127.0.0.1:\(port)\(path)")
    }

    static func parse(_ bytes: [UInt8], what: String) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.firstRange(of: separator) else { throw ValidationErrorMessage("\(what): incomplete HTTP response") }
        let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusFields = head.first?.split(separator: " ") ?? []
        guard statusFields.count >= 2, let status = Int(statusFields[1]) else {
            throw ValidationErrorMessage("\(what): bad status line \(head.first ?? "")")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(bytes[end.upperBound...])
        if hasNoBody(statusLine: head.first ?? "") {
            body = []  // a 304's Content-Length (if any) is the full answer's, not a body's
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, what: what)
        } else if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard body.count >= length else { throw ValidationErrorMessage("\(what): body has \(body.count) of \(length) bytes") }
            body = Array(body.prefix(length))
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// 1xx, 204 and 304 answers end at their head, whatever their headers say (RFC 9112, 6.3).
    static func hasNoBody(statusLine: some StringProtocol) -> Bool {
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, let status = Int(fields[1]) else { return false }
        return status < 200 || status == 204 || status == 304
    }

    private static func dechunk(_ bytes: [UInt8], what: String) throws -> [UInt8] {
        var out: [UInt8] = [], index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw ValidationErrorMessage("\(what): bad chunk size")
            }
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard start + size <= bytes.count else { throw ValidationErrorMessage("\(what): truncated chunk") }
            out += bytes[start..<start + size]
            index = start + size + 2
        }
        return out
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (for `url=` values).
    static func queryEscape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A Prometheus text exposition, as series ("name{labels}") and values.
struct BenchMetrics {
    var series: [String: Double] = [:]

    init(text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            series[String(line[..<space])] = value
        }
    }

    init() {}

    /// The series `name` with exactly these labels (`cache="disk"`), or the sum over every series of
    /// `name` when `labels` is nil.
    func value(_ name: String, _ labels: String? = nil) -> Double? {
        if let labels { return series["\(name){\(labels)}"] }
        let matching = series.filter { $0.key == name || $0.key.hasPrefix(name + "{") }
        return matching.isEmpty ? nil : matching.values.reduce(0, +)
    }

    static func scrape(port: Int) -> BenchMetrics? {
        guard let response = try? BenchHTTP.get(port: port, path: "/metrics", timeout: 10), response.status == 200 else { return nil }
        return BenchMetrics(text: response.text)
    }
}
