/// Help prose written in the source as short lines, made into one line per paragraph.
///
/// ArgumentParser wraps each line of a discussion to the terminal (80 columns when the output is
/// not one) and keeps every newline it is given, so a paragraph typed at 100 columns came out as
/// long lines alternating with stubs of a word or two. Joined, a paragraph wraps evenly at any width.
public enum HelpText {
    /// Joins each line of prose to the one before it. Kept on lines of their own: blank lines
    /// (paragraph breaks), indented lines (examples, output, a list item's continuation), list
    /// items (`- `), and the line after one that ends in a colon (it introduces what follows).
    public static func reflowed(_ text: String) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let previous = lines.last, isProse(line), isProse(previous), !previous.hasSuffix(":") {
                lines[lines.count - 1] = previous + " " + line
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func isProse(_ line: String) -> Bool {
        guard let first = line.first else { return false }
        return !first.isWhitespace && !line.hasPrefix("- ")
    }
}
