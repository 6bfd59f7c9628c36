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
}

extension DocBlock {
    var isSkipped: Bool { if case .skip = mode { true } else { false } }
}
