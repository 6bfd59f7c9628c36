/// A benchmark that cannot run (no corpus, a peer or thumbd missing, a server that never answered):
/// its text is the whole message, printed as it is.
struct ValidationErrorMessage: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
