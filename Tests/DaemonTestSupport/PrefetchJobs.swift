import AsyncHTTPClient
import Foundation
import NIOCore
import ThumbPipeline

/// Prefetch jobs over the daemon's HTTP API: submit (`POST /v1/prefetch`), read the status it
/// answers with, poll `GET /v1/prefetch/{id}` until the job stops running.
public enum PrefetchJobs {
    /// `object` as the JSON body of `POST /v1/prefetch`.
    public static func post(_ daemon: TestDaemon, _ object: [String: Any]) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(daemon.port)/v1/prefetch")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(body.readableBytesView))
    }

    /// The job status a reply carries (dates in ISO 8601, as the API writes them).
    public static func status(_ reply: Reply) throws -> PrefetchStatus {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(PrefetchStatus.self, from: Data(reply.body))
    }

    /// Polls the job until it is no longer running; throws if it still is after `timeout`.
    public static func wait(_ daemon: TestDaemon, _ id: String, timeout: Duration = .seconds(60)) async throws -> PrefetchStatus {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let status = try status(try await daemon.get("/v1/prefetch/\(id)"))
            if status.state != .running { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("job \(id) still running after \(timeout)")
    }
}
