/// Why a variant was refused, in words every door can show; each maps the kind to its own form
/// (a 400 or 403 problem, a usage error that exits 2, a configuration error at load).
public struct VariantError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A named parameter has a value it cannot take (or is given where it cannot apply).
        case invalidParameter(String)
        /// A name no variant has (`sise=`).
        case unknownParameter(String)
        /// `preset=NAME` names no configured preset.
        case unknownPreset(String)
        /// Under `only_presets`, a variant spelled out instead of named.
        case presetRequired
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        (self.kind, self.message) = (kind, message)
    }

    /// The parameter the error is about, when it is about one.
    public var parameter: String? {
        switch kind {
        case .invalidParameter(let name), .unknownParameter(let name): name
        case .unknownPreset: "preset"
        case .presetRequired: nil
        }
    }

    public var description: String { message }
}
