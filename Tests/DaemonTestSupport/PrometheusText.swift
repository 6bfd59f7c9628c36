import Foundation

/// A strict reader of the Prometheus text format (0.0.4): every line must be a comment or a sample
/// `name{label="value",…} number`, so a malformed exposition fails the test.
public enum PrometheusText {
    /// Samples by their full name with labels (`thumbd_cache_bytes{tier="memory"}`); for unlabelled
    /// ones, by bare name.
    public static func parse(_ bytes: [UInt8]) throws -> [String: Double] {
        let text = String(decoding: bytes, as: UTF8.self)
        let sample = try NSRegularExpression(pattern: #"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? (-?[0-9.eE+-]+|NaN|\+Inf|-Inf)$"#)
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let string = String(line)
            let range = NSRange(string.startIndex..., in: string)
            guard let match = sample.firstMatch(in: string, range: range) else {
                throw TestFailure("not a Prometheus sample line: \(string)")
            }
            let valueText = String(string[Range(match.range(at: 4), in: string)!])
            let key = String(string[..<string.lastIndex(of: " ")!])
            values[key] = valueText == "+Inf" ? .infinity : valueText == "-Inf" ? -.infinity : Double(valueText) ?? .nan
        }
        return values
    }
}
