/// Which part of the photo a `cover` crop keeps. Written as text in queries, flags, settings and
/// cache variants (`center`, `smart`); a later `focus` point would be one more case with its
/// coordinates in the text, so the type is an enum with its own spelling rather than a raw string.
public enum Gravity: Sendable, Hashable, CustomStringConvertible {
    /// The middle of the photo: what every thumbnail made before gravity existed shows.
    case center
    /// The window that holds the most of what stands out (`SaliencyMap`, `CropWindow`).
    case smart

    public static let allCases: [Gravity] = [.center, .smart]
    /// The spellings for messages: "center or smart".
    public static let spellings = allCases.map(\.description).joined(separator: " or ")

    public init?(_ text: String) {
        switch text {
        case "center": self = .center
        case "smart": self = .smart
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .center: "center"
        case .smart: "smart"
        }
    }
}
