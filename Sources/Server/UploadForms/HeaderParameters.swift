/// A header value with `; key=value` parameters, as Content-Type and Content-Disposition carry them:
/// `form-data; name="images"; filename="a; b.jpg"`. Quoted values may hold `;`, `=` and
/// backslash-escaped quotes; keys are case-insensitive.
public struct HeaderParameters: Sendable, Equatable {
    /// The part before the first `;`, lower-cased ("form-data", "multipart/form-data").
    public var value: String
    public var parameters: [String: String]

    public subscript(key: String) -> String? { parameters[key.lowercased()] }

    public init(_ header: String) {
        var characters = Substring(header)
        func skipSpaces() { characters = characters.drop { $0 == " " || $0 == "\t" } }
        func token(until stops: Set<Character>) -> String {
            let taken = characters.prefix { !stops.contains($0) }
            characters = characters.dropFirst(taken.count)
            return taken.trimmingCharacters(in: .whitespaces)
        }
        value = token(until: [";"]).lowercased()
        parameters = [:]
        while characters.first == ";" {
            characters = characters.dropFirst()
            skipSpaces()
            let key = token(until: ["=", ";"]).lowercased()
            guard characters.first == "=" else { continue }
            characters = characters.dropFirst()
            skipSpaces()
            var parameter = ""
            if characters.first == "\"" {
                characters = characters.dropFirst()
                while let c = characters.first {
                    characters = characters.dropFirst()
                    if c == "\"" { break }
                    if c == "\\", let escaped = characters.first {
                        parameter.append(escaped)
                        characters = characters.dropFirst()
                    } else {
                        parameter.append(c)
                    }
                }
                _ = token(until: [";"])
            } else {
                parameter = token(until: [";"])
            }
            if !key.isEmpty { parameters[key] = parameter }
        }
    }

    /// `value` in double quotes with `"` and `\` escaped, for writing a parameter.
    public static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// RFC 9110's token characters (header names, parameter names): visible ASCII but the separators.
public enum HTTPToken {
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
