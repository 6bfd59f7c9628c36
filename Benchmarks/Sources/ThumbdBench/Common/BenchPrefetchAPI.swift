import Foundation
import ThumbPipeline

/// A prefetch job's report (`POST`, `GET`, `DELETE /v1/prefetch…`) as the benchmarks read it.
enum BenchPrefetchAPI {
    typealias Status = PrefetchStatus

    static func decode(_ data: Data) throws -> Status {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(Status.self, from: data)
    }

    /// The report in an answer's body, or nil when the body is not one.
    static func status(_ body: [UInt8]) -> Status? { try? decode(Data(body)) }
}
