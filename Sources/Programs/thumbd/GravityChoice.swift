import ArgumentParser
import Thumbnailer

/// `--gravity` and `--focus` as one choice, as the API takes `gravity=` and `focus=`: at most one
/// of them, nil when neither (the command's default then applies).
func chosenGravity(_ gravity: Gravity?, focus: FocusPoint?) throws -> Gravity? {
    switch (gravity, focus) {
    case (.some, .some): throw ValidationError("give --gravity or --focus, not both")
    case (let gravity?, nil): gravity
    case (nil, let point?): .focus(point)
    case (nil, nil): nil
    }
}

extension FocusPoint: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
