import ChildProcess
import Foundation
import ImageCodecs
import ImageCore
import Testing
import TestSupport

/// Every command and request shown in README.md and docs/*.md, run for real: a page whose example
/// no longer works fails here, naming the page and line (docs/CONTRIBUTING-docs.md has the rules).
@Suite(.serialized)
struct DocsExamplesTests {
    @Test(arguments: try DocsExamples.pages())
    func examplesOfPageRun(_ page: String) throws {
        let blocks = DocsExamples.blocks(in: page, text: try DocsExamples.text(of: page))
        for block in blocks {
            if case .skip(let reason) = block.mode, reason.isEmpty {
                Issue.record("\(page):\(block.line - 1): a doc-test marker must be `skip: REASON`, `fails` or `daemon stopped`")
            }
        }
        let runnable = blocks.filter { !$0.isSkipped && !$0.commands.isEmpty }
        guard !runnable.isEmpty else { return }

        let world = try DocWorld()
        defer { world.stop() }
        var places = DocsExamples.Places(daemonPort: world.daemonPort, originPort: world.origin.port)
        for block in runnable {
            if block.mode == .daemonStopped { try world.stopDaemon() }
            var printed = ""
            for command in block.commands {
                let text = DocsExamples.substitute(command.text, places)
                let foreign = DocsExamples.foreignHosts(text)
                guard foreign.isEmpty else {
                    Issue.record("\(page):\(command.line): reaches \(foreign.joined(separator: ", ")): use a reserved example host or mark the block skipped")
                    continue
                }
                let result = try world.shell(text)
                printed += result.stdoutText + "\n" + result.stderrText + "\n"
                let where_ = "\(page):\(command.line): `\(command.text)`"
                if result.timedOut {
                    Issue.record("\(where_) did not end within \(DocWorld.commandTimeout) s")
                } else if block.mode == .fails {
                    #expect(result.status != 0, "\(where_) was shown as failing but exited 0:\n\(result.stdoutText)")
                } else {
                    #expect(result.status == 0, "\(where_) exited \(result.status):\n\(result.stdoutText)\n\(result.stderrText)")
                }
                if text.contains("/v1/prefetch"), text.contains("POST"), let id = Self.jobID(result.stdoutText) {
                    places.jobID = id
                }
            }
            if block.mode == .daemonStopped { try world.startDaemon() }
            let expected = block.expectedOutput.map { DocsExamples.substitute($0, places) }
            if let missing = DocsExamples.unmatchedLine(expected: expected, printed: printed) {
                Issue.record("\(page):\(block.expectedOutputLine ?? block.line): the output shown has `\(missing)`, not printed (in order) by the block at line \(block.line):\n\(printed)")
            }
        }
    }

    static func jobID(_ json: String) -> String? {
        guard let match = json.range(of: #""id"\s*:\s*"([^"]+)""#, options: .regularExpression) else { return nil }
        return json[match].split(separator: "\"").dropFirst(2).first.map(String.init)
    }

    /// The parser finds what the pages show: if it silently found nothing, every page would pass.
    @Test func parserFindsTheExamples() throws {
        let all = try DocsExamples.pages().flatMap { DocsExamples.blocks(in: $0, text: try DocsExamples.text(of: $0)) }
        let commands = all.flatMap(\.commands)
        #expect(commands.count >= 40, "only \(commands.count) commands found")
        #expect(commands.contains { $0.text.hasPrefix("thumbd thumbnail photo.jpg -o t.avif --format avif") })
        #expect(all.contains { !$0.expectedOutput.isEmpty })
        #expect(all.contains { $0.isSkipped })
        // Continuation lines are joined into the command they continue.
        #expect(commands.contains { $0.text.hasPrefix("curl -s -F params=") && $0.text.contains("/v1/uploads/prepare") })
    }

    @Test func outputLinesMatchWithEllipsis() {
        #expect(DocsExamples.matches(#"ETag: "ab12""#, #"ETag: "…""#))
        #expect(DocsExamples.matches("X-Cache: miss", "X-Cache: …"))
        #expect(!DocsExamples.matches("X-Cache: miss", "X-Cache: memory"))
        #expect(DocsExamples.matches(#"{"a":1,"b":"x","c":3}"#, #"{"a":…,"b":"x",…}"#))
        #expect(!DocsExamples.matches(#"{"a":1,"c":3}"#, #"{"a":…,"b":"x",…}"#))
        #expect(DocsExamples.unmatchedLine(expected: ["one", "three"], printed: "one\ntwo\nthree") == nil)
        #expect(DocsExamples.unmatchedLine(expected: ["three", "one"], printed: "one\ntwo\nthree") == "one")
    }

    @Test func placeholdersBecomeLocalAddresses() {
        let places = DocsExamples.Places(daemonPort: 4001, originPort: 4002, jobID: "abc")
        let text = DocsExamples.substitute(
            "curl 'http://127.0.0.1:8080/v1/thumbnail?url=https://shop.example/p/1.jpg' localhost:8080/v1/prefetch/3f2a9c1b7e40 --host img.example -d '{\"u\":\"https://cdn.example.com/a.jpg\"}'",
            places)
        #expect(text == "curl 'http://127.0.0.1:4001/v1/thumbnail?url=http://127.0.0.1:4002/p/1.jpg' 127.0.0.1:4001/v1/prefetch/abc --host 127.0.0.1:4002 -d '{\"u\":\"http://127.0.0.1:4002/a.jpg\"}'")
        #expect(DocsExamples.foreignHosts(text).isEmpty)
        #expect(DocsExamples.foreignHosts(DocsExamples.substitute("curl https://upload.wikimedia.org/x.jpg", places)) == ["upload.wikimedia.org"])
    }

    /// Every relative link in the pages points at a file that exists, and a `#fragment` at one of
    /// that page's headings.
    @Test(arguments: try DocsExamples.pages())
    func linksOfPageResolve(_ page: String) throws {
        let text = try DocsExamples.text(of: page)
        let folder = URL(fileURLWithPath: page).deletingLastPathComponent().relativePath
        for link in DocLinks.links(in: text) where !link.target.contains("://") && !link.target.hasPrefix("mailto:") {
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let path = parts[0]
            let relative = path.isEmpty ? page : (folder == "." ? path : "\(folder)/\(path)")
            let file = TestPaths.packageRoot.appendingPathComponent(relative).standardizedFileURL
            guard FileManager.default.fileExists(atPath: file.path) else {
                Issue.record("\(page):\(link.line): the link to \(link.target) points at no file")
                continue
            }
            if parts.count == 2, file.pathExtension == "md" {
                let anchors = DocLinks.anchors(in: try String(contentsOf: file, encoding: .utf8))
                #expect(anchors.contains(parts[1]), "\(page):\(link.line): \(link.target) has no heading #\(parts[1])")
            }
        }
    }
}

extension DocBlock {
    var isSkipped: Bool { if case .skip = mode { true } else { false } }
}

/// Markdown links and GitHub's heading anchors.
enum DocLinks {
    struct Link { var line: Int; var target: String }

    /// `[text](target)` and `![alt](target)` outside fenced blocks and code spans.
    static func links(in text: String) -> [Link] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var links: [Link] = []
        var inFence = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            let plain = line.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression)
            for match in pattern.matches(in: plain, range: NSRange(plain.startIndex..., in: plain)) {
                if let range = Range(match.range(at: 1), in: plain) { links.append(Link(line: index + 1, target: String(plain[range]))) }
            }
        }
        return links
    }

    /// Headings as GitHub makes anchors of them: lower case, spaces to `-`, other punctuation
    /// (but `-` and `_`) dropped; a repeated heading gets `-1`, `-2`.
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors = Set<String>()
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let slug = String(title.lowercased().compactMap { c -> Character? in
                if c == " " { return "-" }
                return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
            })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }
}
