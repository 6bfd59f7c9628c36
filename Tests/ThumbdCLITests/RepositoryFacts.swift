import ChildProcess
import Foundation
import TestSupport

/// What the docs must agree with, read from where it is decided: Package.swift, the Makefile, and
/// the variant grammar's own page.
enum RepositoryFacts {
    static let root = TestPaths.packageRoot

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every target's name as SwiftPM reads the manifest, so a target made in a loop or a helper
    /// counts too. In a scratch folder of its own: `swift test` holds .build's lock while tests run,
    /// and dump-package would wait for it forever.
    static func targetNames() throws -> [String] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-dump-package-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try ChildProcess.run("swift", ["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"],
                                          timeoutSeconds: 300)
        guard result.status == 0, !result.timedOut else {
            throw FactError("swift package dump-package exited \(result.status):\n\(result.stderrText)")
        }
        struct Manifest: Decodable {
            struct Target: Decodable { var name: String }
            var targets: [Target]
        }
        return try JSONDecoder().decode(Manifest.self, from: Data(result.stdout)).targets.map(\.name)
    }

    /// The words of the Makefile's `BUILD_PACKAGES :=` (continuation lines joined).
    static func buildPackages() throws -> [String] {
        let makefile = try text("Makefile").replacingOccurrences(of: "\\\n", with: " ")
        guard let line = makefile.split(separator: "\n").first(where: { $0.hasPrefix("BUILD_PACKAGES") && $0.contains(":=") }) else {
            throw FactError("the Makefile has no `BUILD_PACKAGES := …` line")
        }
        return line.split(separator: "=", maxSplits: 1)[1].split(separator: " ").map(String.init)
    }

    /// The README's list of system packages: the first parenthesised list of code spans that names
    /// one of `packages`, with the line it starts on.
    static func readmePackageList(naming packages: [String]) throws -> (line: Int, packages: [String])? {
        let readme = try text("README.md")
        let lists = try NSRegularExpression(pattern: #"\(([^()]*)\)"#)
        for match in lists.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)) {
            let inside = String(readme[Range(match.range(at: 1), in: readme)!])
            let named = codeSpans(in: inside)
            guard named.contains(where: packages.contains) else { continue }
            let start = Range(match.range, in: readme)!.lowerBound
            return (readme[..<start].filter { $0 == "\n" }.count + 1, named)
        }
        return nil
    }

    /// The parameters and CLI options of docs/variant.md's table (`size`, `--size`, `q`, `quality`, …).
    static func variantNames() throws -> Set<String> {
        var names = Set<String>()
        var inTable = false
        for line in try text("docs/variant.md").split(separator: "\n", omittingEmptySubsequences: false) {
            let cells = tableCells(String(line))
            if cells.first == "parameter" { inTable = true; continue }
            guard inTable else { continue }
            guard line.hasPrefix("|") else { break }
            for cell in cells.prefix(2) { names.formUnion(codeSpans(in: cell)) }
        }
        return names
    }

    /// A markdown table row's cells, trimmed; empty for any other line and for the `|---|` rule.
    static func tableCells(_ line: String) -> [String] {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("|"), trimmed.contains(where: { $0 != "|" && $0 != "-" && $0 != " " && $0 != ":" }) else { return [] }
        // The row's outer bars leave an empty first and last piece; `\|` is a bar inside a cell.
        let pieces = trimmed.replacingOccurrences(of: "\\|", with: "\u{0}").split(separator: "|", omittingEmptySubsequences: false)
        return pieces.dropFirst().dropLast(trimmed.hasSuffix("|") ? 1 : 0)
            .map { $0.replacingOccurrences(of: "\u{0}", with: "|").trimmingCharacters(in: .whitespaces) }
    }

    static func codeSpans(in text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    struct FactError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
