/// A setting that cannot be used, named by its key and where its value came from.
public struct ConfigError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
