/// What `ColorManagement.convertToSRGB` did to an image, for the answer's `X-Thumbd-Color` header
/// and the log.
public enum ColorOutcome: Sendable, Equatable {
    /// Nothing to do: untagged (taken as sRGB), declared sRGB, or a profile equal to sRGB.
    case sRGB
    /// Converted from the named profile (its description, e.g. "Display P3").
    case converted(from: String)
    /// The file's colour information could not be used; the samples were taken as sRGB (a CMYK
    /// image converted without a profile). `reason` says why, in words.
    case ignored(reason: String)

    /// The header's value: `srgb`, `converted; from="Display P3"`, `ignored; reason="…"`.
    public var headerValue: String {
        switch self {
        case .sRGB: "srgb"
        case .converted(let name): "converted; from=\(Self.quoted(name))"
        case .ignored(let reason): "ignored; reason=\(Self.quoted(reason))"
        }
    }

    /// A quoted-string that survives any profile name: printable ASCII only, quotes and
    /// backslashes escaped, at most 120 characters.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(120) {
            switch scalar {
            case "\"", "\\": out += "\\" + String(scalar)
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "?"
            }
        }
        return "\"" + out + "\""
    }
}
