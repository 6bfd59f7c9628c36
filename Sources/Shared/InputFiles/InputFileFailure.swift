/// One input file that could not be made into what was asked, with a stable code (`read_failed`,
/// `corrupt_image`, …) so a batch can report it as `FILE: CODE: reason` and go on with the others.
public struct InputFileFailure: Error, CustomStringConvertible, Sendable {
    public var input: String
    public var code: String
    public var message: String

    public init(input: String, code: String, message: String) {
        self.input = input
        self.code = code
        self.message = message
    }

    public var description: String { "\(input): \(code): \(message)" }
}
