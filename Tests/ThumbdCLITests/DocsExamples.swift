import Foundation
import TestSupport

/// The examples in README.md and docs/*.md, read the way docs/CONTRIBUTING-docs.md says: a ```sh
/// block's lines that start with `thumbd ` or `curl ` are commands, an HTML comment
/// `<!-- doc-test: … -->` just before the block changes how it runs, and a ```text block right
/// after it shows output that must appear.
struct DocBlock: Sendable {
    enum Mode: Equatable, Sendable {
        case run
        case fails
        case daemonStopped
        case skip(reason: String)
    }

    struct Command: Sendable {
        var line: Int
        var text: String
    }

    var file: String
    var line: Int
    var mode: Mode
    var commands: [Command]
    /// The ```text block after this one, with the line of its first row, if there is one.
    var expectedOutput: [String]
    var expectedOutputLine: Int?
}

enum DocsExamples {
    /// README.md first, then docs/*.md by name: the pages a newcomer reads.
    static func pages() throws -> [String] {
        let docs = TestPaths.packageRoot.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path)
            .filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md"] + names.map { "docs/\($0)" }
    }

    static func text(of page: String) throws -> String {
        try String(contentsOf: TestPaths.packageRoot.appendingPathComponent(page), encoding: .utf8)
    }

    /// Every ```sh block of a page, with its commands (possibly none, e.g. only `make` lines).
    static func blocks(in page: String, text: String) -> [DocBlock] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [DocBlock] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index].trimmingCharacters(in: .whitespaces)
            guard fence.hasPrefix("```") else { index += 1; continue }
            let info = fence.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let body = fenceBody(lines, from: index)
            if info == "sh" {
                var block = DocBlock(file: page, line: index + 1, mode: marker(lines, before: index),
                                     commands: commands(body.rows, firstLine: index + 2), expectedOutput: [])
                // Output: the next fence, with only blank lines between, when it is ```text.
                var next = body.end + 1
                while next < lines.count, lines[next].trimmingCharacters(in: .whitespaces).isEmpty { next += 1 }
                if next < lines.count, lines[next].trimmingCharacters(in: .whitespaces) == "```text" {
                    let output = fenceBody(lines, from: next)
                    block.expectedOutput = output.rows.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    block.expectedOutputLine = next + 2
                    blocks.append(block)
                    index = output.end + 1
                    continue
                }
                blocks.append(block)
            }
            index = body.end + 1
        }
        return blocks
    }

    /// The rows inside the fence opened at `start`, and the index of its closing fence.
    private static func fenceBody(_ lines: [String], from start: Int) -> (rows: [String], end: Int) {
        var end = start + 1
        while end < lines.count, !lines[end].trimmingCharacters(in: .whitespaces).hasPrefix("```") { end += 1 }
        return (Array(lines[(start + 1)..<min(end, lines.count)]), end)
    }

    private static func marker(_ lines: [String], before fence: Int) -> DocBlock.Mode {
        guard fence > 0 else { return .run }
        let previous = lines[fence - 1].trimmingCharacters(in: .whitespaces)
        guard previous.hasPrefix("<!-- doc-test:"), previous.hasSuffix("-->") else { return .run }
        let content = previous.dropFirst("<!-- doc-test:".count).dropLast(3).trimmingCharacters(in: .whitespaces)
        switch content {
        case "fails": return .fails
        case "daemon stopped": return .daemonStopped
        default:
            if content.hasPrefix("skip:") {
                return .skip(reason: content.dropFirst(5).trimmingCharacters(in: .whitespaces))
            }
            // An unknown marker is a mistake in the page: skipping with no reason is refused below.
            return .skip(reason: "")
        }
    }

    /// Lines starting `thumbd ` or `curl `, joined with their `\` continuations.
    private static func commands(_ rows: [String], firstLine: Int) -> [DocBlock.Command] {
        var commands: [DocBlock.Command] = []
        var row = 0
        while row < rows.count {
            let start = row
            var text = rows[row]
            while text.hasSuffix("\\"), row + 1 < rows.count {
                row += 1
                text = String(text.dropLast()) + " " + rows[row].trimmingCharacters(in: .whitespaces)
            }
            if text.hasPrefix("thumbd ") || text.hasPrefix("curl ") {
                commands.append(.init(line: firstLine + start, text: text))
            }
            row += 1
        }
        return commands
    }

    // MARK: Output

    /// Whether every expected line appears among the printed lines, in order. `…` in an expected
    /// line stands for any text (including none).
    static func unmatchedLine(expected: [String], printed: String) -> String? {
        // Split on every line end: curl prints HTTP heads with CRLF, which Swift holds as one Character.
        let printedLines = printed.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var position = 0
        for wanted in expected {
            let pattern = wanted.trimmingCharacters(in: .whitespaces)
            guard let found = printedLines[position...].firstIndex(where: { matches($0, pattern) }) else { return wanted }
            position = found + 1
        }
        return nil
    }

    static func matches(_ line: String, _ pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard pieces.count > 1 else { return line == pattern }
        guard line.hasPrefix(pieces[0]), line.hasSuffix(pieces[pieces.count - 1]),
              line.count >= pieces[0].count + pieces[pieces.count - 1].count else { return false }
        var rest = line.dropFirst(pieces[0].count).dropLast(pieces[pieces.count - 1].count)
        for middle in pieces.dropFirst().dropLast() where !middle.isEmpty {
            guard let range = rest.range(of: middle) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    // MARK: Placeholders

    /// Where the examples' placeholders point in one run.
    struct Places {
        var daemonPort: Int
        var originPort: Int
        var jobID: String?
    }

    /// A host the docs may use as a stand-in for the internet: the reserved example names.
    static let exampleHost = try! NSRegularExpression(
        pattern: #"(https?://)?((?:[a-z0-9-]+\.)*example\.(?:com|org)|(?:[a-z0-9-]+\.)+example)(?![a-z0-9.-]*[a-z0-9])"#)

    static func substitute(_ command: String, _ places: Places) -> String {
        var text = command
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(places.daemonPort)")
            .replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(places.daemonPort)")
        let origin = "127.0.0.1:\(places.originPort)"
        let range = NSRange(text.startIndex..., in: text)
        text = exampleHost.stringByReplacingMatches(in: text, range: range, withTemplate: "\u{1}$1")
        // `\u{1}` marks where a host stood; a scheme before it becomes http, as the origin speaks.
        text = text.replacingOccurrences(of: "\u{1}https://", with: "http://\(origin)")
            .replacingOccurrences(of: "\u{1}http://", with: "http://\(origin)")
            .replacingOccurrences(of: "\u{1}", with: origin)
        if let job = places.jobID { text = text.replacingOccurrences(of: "3f2a9c1b7e40", with: job) }
        return text
    }

    /// Hosts a command would still reach that are not this machine.
    static func foreignHosts(_ command: String) -> [String] {
        let url = try! NSRegularExpression(pattern: #"[a-z]+://([^/\s'"?#]+)"#)
        let range = NSRange(command.startIndex..., in: command)
        return url.matches(in: command, range: range).compactMap { match in
            guard let hostRange = Range(match.range(at: 1), in: command) else { return nil }
            let host = String(command[hostRange])
            let name = host.split(separator: ":").first.map(String.init) ?? host
            return name == "127.0.0.1" || name == "localhost" ? nil : host
        }
    }
}
