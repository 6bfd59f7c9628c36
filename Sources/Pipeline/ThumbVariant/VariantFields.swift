/// A variant as a door received it, before any check: the names and values of a query, a JSON
/// body, a YAML preset or the command line's options. Each door only says what kind of value it
/// got; `VariantParser` reads them all.
public struct VariantFields: Sendable {
    public enum Value: Sendable, Equatable {
        /// A query's value, a flag's argument, or a JSON/YAML string.
        case text(String)
        /// A JSON or YAML number.
        case number(Double)
        /// A JSON or YAML boolean.
        case flag(Bool)
        /// A value of another kind (an array, an object, null): refused by name.
        case other(String)
    }

    /// In the order given; the first of a repeated name counts, as for every query parameter.
    public private(set) var pairs: [(name: String, value: Value)] = []

    public init() {}

    public init(_ pairs: [(name: String, value: Value)]) { self.pairs = pairs }

    /// The query's pairs, every value text.
    public init(query pairs: [(String, String)]) { self.pairs = pairs.map { ($0.0, .text($0.1)) } }

    /// A decoded JSON object's or YAML map's fields (`JSONSerialization` and Yams give `Any`).
    public init(object: [String: Any]) {
        pairs = object.keys.sorted().map { name in (name, Self.value(object[name]!)) }
    }

    public mutating func append(_ name: String, _ value: Value?) {
        if let value { pairs.append((name, value)) }
    }

    public mutating func append(_ name: String, text: String?) { append(name, text.map(Value.text)) }

    public subscript(_ name: String) -> Value? { pairs.first { $0.name == name }?.value }

    static func value(_ any: Any) -> Value {
        // Foundation's JSON reader gives true and false as a boolean kind of NSNumber, which a cast
        // to Bool would also take a 1 or a 0 for: the type tells them apart.
        let type = String(describing: Swift.type(of: any))
        if type == "Bool" || type == "__NSCFBoolean", let flag = any as? Bool { return .flag(flag) }
        return switch any {
        case let number as Int: .number(Double(number))
        case let number as Double: .number(number)
        case let text as String: .text(text)
        default: .other(String(describing: any))
        }
    }
}
