import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP exchange with the entry point or a node: the status, headers and (capped) body, or a
/// `FleetCallError` with a stable code saying why there was no answer.
struct FleetHTTP: Sendable {
    /// Who is asked: the codes of a failure say it (`entry_unreachable`, `node_timeout`, …).
    enum Role: String, Sendable {
        case entry, node
    }

    let client: HTTPClient
    let requestTimeout: Duration
    let role: Role
    /// Error documents and JSON answers are small; a thumbnail's bytes are counted, not kept.
    static let keptBodyLimit = 4 << 20

    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        /// The whole body's length, kept or not.
        var length: Int
    }

    /// `keepBody` false: a 200's body is only counted (error bodies are always kept).
    func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], keepBody: Bool = true) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(requestTimeout.nanosecondsClamped)))
            var body: [UInt8] = []
            var length = 0
            for try await chunk in response.body {
                length += chunk.readableBytes
                if keepBody || response.status != .ok, body.count < Self.keptBodyLimit { body += chunk.readableBytesView.prefix(Self.keptBodyLimit - body.count) }
            }
            return Answer(status: Int(response.status.code), headers: response.headers, body: body, length: length)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw FleetCallError(url: url, role: role, underlying: error)
        }
    }

    /// The code and detail of a problem+json answer, or a generic pair for anything else (an HTML
    /// page from the balancer, say).
    func problem(of answer: Answer, from url: String) -> (code: String, detail: String) {
        if let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
           let code = object["code"] as? String {
            return (code, object["detail"] as? String ?? "")
        }
        return ("\(role.rawValue)_status", "\(url) answered HTTP \(answer.status)")
    }
}

/// No answer from the entry point or a node.
public struct FleetCallError: Error, Sendable, CustomStringConvertible {
    public let code: String
    public let message: String

    init(url: String, role: FleetHTTP.Role, underlying: any Error) {
        let text = "\(underlying)"
        if let error = underlying as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            code = "\(role.rawValue)_timeout"
            message = "\(url) did not answer in time (\(error))"
        } else {
            code = "\(role.rawValue)_unreachable"
            message = "cannot reach \(url): \(text)"
        }
    }

    public var description: String { "\(code): \(message)" }
}

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        guard seconds < Int64.max / 1_000_000_000 else { return .max }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
