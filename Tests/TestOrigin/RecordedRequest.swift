/// One request head as the test origin received it, recorded before any latency.
public struct RecordedRequest: Sendable {
    /// `GET`, `HEAD`, ...
    public let method: String
    /// The request target as sent: path and query.
    public let uri: String
    /// The path alone (the query stripped).
    public let path: String
    /// Header fields in the order received, names lower-cased.
    public let headers: [(name: String, value: String)]
    /// When the head arrived.
    public let at: ContinuousClock.Instant
    /// Which accepted connection carried it (1, 2, ... in accept order): equal numbers mean a reused connection.
    public let connection: Int

    /// The first value of the header `name` (any case), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return self.headers.first { $0.name == lowered }?.value
    }

    /// Every value of the header `name` (any case), in order.
    public func headerValues(_ name: String) -> [String] {
        let lowered = name.lowercased()
        return self.headers.filter { $0.name == lowered }.map(\.value)
    }
}

extension RecordedRequest: CustomStringConvertible {
    public var description: String { "\(self.method) \(self.uri) (connection \(self.connection))" }
}
