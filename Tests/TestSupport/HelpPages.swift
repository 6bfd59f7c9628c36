import ChildProcess
import Foundation

/// The `--help` pages of a program built on ArgumentParser: its own and each subcommand's.
public enum HelpPages {
    /// The program's subcommand paths, depth first, from the `SUBCOMMANDS:` section of each page
    /// (the root is `[]`; ArgumentParser's own `help` is left out).
    public static func commands(of executable: String, _ path: [String] = []) throws -> [[String]] {
        let children = entries(of: try page(of: executable, path), in: { $0 == "SUBCOMMANDS:" }).compactMap { entry in
            entry.split(separator: " ").first.map(String.init)
        }.filter { $0 != "help" }
        return [path] + (try children.flatMap { try commands(of: executable, path + [$0]) })
    }

    /// The entries of the help's sections that `section` picks (by their heading, such as
    /// `OPTIONS:`), each with its wrapped lines joined. A heading is a line in capitals ending in `:`;
    /// an entry starts two spaces in and deeper lines continue it.
    public static func entries(of help: String, in section: (String) -> Bool) -> [String] {
        var entries: [String] = []
        var inside = false
        for line in help.components(separatedBy: "\n") {
            if !line.hasPrefix(" ") {
                inside = line.hasSuffix(":") && line == line.uppercased() && section(line)
                continue
            }
            guard inside, !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let text = line.trimmingCharacters(in: .whitespaces)
            if !line.hasPrefix("   ") || entries.isEmpty {
                entries.append(text)
            } else {
                entries[entries.count - 1] += " " + text
            }
        }
        return entries
    }

    public static func page(of executable: String, _ path: [String]) throws -> String {
        try ChildProcess.run(executable, path + ["--help"], timeoutSeconds: 30).stdoutText
    }

    /// Lines of the page's prose (before `USAGE:`) that wrapping left as stubs: a line at the left
    /// margin of fewer than 60 columns that neither ends a sentence nor introduces what follows,
    /// followed by one that carries the same sentence on in lower case. (An indented line is an
    /// example or output, which may well be short.) ArgumentParser keeps every newline of a
    /// discussion and wraps each line at 80 columns, so a paragraph typed at a wider measure comes
    /// out as full lines alternating with a word or two.
    public static func stubLines(in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var stubs: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            if line.hasPrefix("USAGE:") { break }
            guard let start = line.first, !start.isWhitespace, line.count < 60,
                  let first = next.first, first.isLowercase else { continue }
            if !line.hasSuffix(".") && !line.hasSuffix(":") { stubs.append(line) }
        }
        return stubs
    }
}
