import ThumbVariant
import Foundation
import ThumbPipeline

/// Prefetch items requested through the fleet's entry point (`fleet.entry`, the balancer): the
/// balancer hashes each URL to its home node, which makes the thumbnail and keeps it, exactly as
/// when a browser asks for it later. thumbd itself never learns the ring.
///
/// Items are marked `X-Thumbd-Priority: prefetch`, so the home node makes them below the requests
/// someone is waiting for. Cancelling the job cancels the requests; the balancer then closes its
/// upstream connection, and the home node drops the work if nobody else waits for it.
public struct EntryPointMaker: PrefetchMaker {
    public static let priorityHeader = "X-Thumbd-Priority"

    /// The balancer's base URL.
    public let entry: String
    private let http: FleetHTTP
    private let query: @Sendable ([(String, String)]) -> String

    /// `query` writes the thumbnail query from its parameters: canonical (RFC 3986) encoding, and
    /// signed when the fleet serves signed URLs, so the balancer hashes the URL as it hashes
    /// every other request for it.
    public init(entry: String, client: FleetClient, query: @escaping @Sendable ([(String, String)]) -> String) {
        self.entry = entry
        http = client.http(.entry)
        self.query = query
    }

    public func make(_ url: String, variant: Variant) async throws -> PrefetchOutcome {
        let parameters = query(Self.parameters(url: url, variant: variant))
        let target = entry + "/v1/thumbnail?" + parameters
        let answer: FleetHTTP.Answer
        do {
            answer = try await http.send(.GET, target, headers: [(Self.priorityHeader, "prefetch")], keepBody: false)
        } catch let error as FleetCallError {
            throw PrefetchItemError(code: error.code, message: error.message)
        }
        guard answer.status == 200 else {
            let problem = http.problem(of: answer, from: entry)
            throw PrefetchItemError(code: problem.code, message: problem.detail.isEmpty ? "the entry point answered HTTP \(answer.status)" : problem.detail)
        }
        let placeholder = await placeholder(parameters)
        return answer.headers.first(name: "x-cache") == "miss" ? .made(bytes: answer.length, placeholder: placeholder)
            : .alreadyCached(placeholder: placeholder)
    }

    /// The placeholder from the same home node (the same query, so the same hash and signature):
    /// a cache hit there now. Nil if it cannot be had: the item itself is made either way.
    private func placeholder(_ parameters: String) async -> Placeholder? {
        guard let answer = try? await http.send(.GET, entry + "/v1/placeholder?" + parameters, headers: [(Self.priorityHeader, "prefetch")]),
              answer.status == 200 else { return nil }
        return try? JSONDecoder().decode(Placeholder.self, from: Data(answer.body))
    }

    /// The thumbnail's path and query as every client of the fleet writes it (unsigned).
    public static func thumbnailPath(url: String, variant: Variant) -> String {
        "/v1/thumbnail?" + CanonicalQuery.write(parameters(url: url, variant: variant))
    }

    /// Every variant parameter spelled out, so each node reads the same variant whatever its defaults.
    /// A preset's variant is asked for by its name: a node with `server.only_presets` makes nothing else.
    public static func parameters(url: String, variant: Variant) -> [(String, String)] {
        [("url", url)] + variant.parameters.map { ($0.name, $0.value) }
    }
}
