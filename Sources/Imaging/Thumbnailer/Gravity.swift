/// Which part of the photo a `cover` crop keeps. Written as text in queries, flags, settings and
/// cache variants (`center`, `smart`, `focus=0.250,0.600`), so the type is an enum with its own
/// spelling rather than a raw string.
public enum Gravity: Sendable, Hashable, CustomStringConvertible {
    /// The middle of the photo: what every thumbnail made before gravity existed shows.
    case center
    /// The window that holds the most of what stands out (`SaliencyMap`, `CropWindow`).
    case smart
    /// The window centred on this point as far as the frame allows (a seller pinning the product).
    case focus(FocusPoint)

    /// The gravities a `gravity=` parameter, flag or setting names; a focus has its own parameter.
    public static let allCases: [Gravity] = [.center, .smart]
    /// The spellings for messages: "center or smart".
    public static let spellings = allCases.map(\.description).joined(separator: " or ")

    /// A named gravity (`center`, `smart`); a focus point is given as `focus=X,Y`, not here.
    public init?(_ text: String) {
        switch text {
        case "center": self = .center
        case "smart": self = .smart
        default: return nil
        }
    }

    /// The variant's text: `center`, `smart`, `focus=0.250,0.600`.
    public var description: String {
        switch self {
        case .center: "center"
        case .smart: "smart"
        case .focus(let point): "focus=" + point.description
        }
    }

    /// The query parameter that asks for this gravity, as the fleet and the prefetch client write
    /// it: `gravity=smart`, or `focus=0.250,0.600`.
    public var queryParameter: (name: String, value: String) {
        switch self {
        case .center, .smart: ("gravity", description)
        case .focus(let point): ("focus", point.description)
        }
    }

    /// The gravity a request's `gravity` and `focus` texts ask for, nil when it gives neither (the
    /// caller's default then applies). Both at once is refused rather than one quietly winning:
    /// a client that sends both has a mistake somewhere. The messages are the API's details.
    public static func requested(gravity: String?, focus: String?) throws(GravityChoiceError) -> Gravity? {
        switch (gravity, focus) {
        case (nil, nil): return nil
        case (.some, .some): throw GravityChoiceError("give gravity or focus, not both")
        case (let text?, nil):
            guard let named = Gravity(text) else { throw GravityChoiceError("gravity must be \(spellings), not \"\(text)\"") }
            return named
        case (nil, let text?):
            guard let point = FocusPoint(text) else {
                throw GravityChoiceError("focus must be X,Y, two fractions of the upright photo from 0 to 1 (focus=0.5,0.3), not \"\(text)\"")
            }
            return .focus(point)
        }
    }
}

/// Why a request's gravity or focus was refused, in words for the client.
public struct GravityChoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
