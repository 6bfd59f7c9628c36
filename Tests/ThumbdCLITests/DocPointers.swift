import Foundation
import TestSupport

/// A place where one file of the repository sends its reader to another, and maybe to a heading
/// in it: a relative markdown link, or a pointer written as plain text, such as
/// `docs/variant.md#refusals` or `docs/operations.md "A fleet behind nginx"`.
struct DocPointer: Sendable {
    /// The file the pointer is written in, relative to the package root, and its line.
    var file: String
    var line: Int
    var written: String
    /// The file pointed at, as written; empty for a link to a heading of the same page.
    var path: String
    /// An anchor (`#refusals`) or a heading's words, as written.
    var heading: String?
    var headingIsAnchor: Bool
    /// Links resolve from the folder of the file they are in, as GitHub resolves them; textual
    /// pointers name paths from the package root (or from their own folder).
    var isLink: Bool
}

/// A stretch of prose pointers are read from: a page outside its fenced blocks, or a run of
/// comment lines joined, so a pointer wrapped onto the next comment line is still whole.
struct DocPassage: Sendable {
    var firstLine: Int
    var text: String
}

enum DocPointers {
    static let root = TestPaths.packageRoot

    /// Pages read whole (outside fences), and files whose comments are read.
    static let scannedFolders = ["docs", "config", "Sources", "Tests", "Fuzz", "Plugins", "packaging", "Benchmarks"]
    static let scannedRootFiles = ["README.md", "ARCHITECTURE.md", "Package.swift", "Makefile", "Containerfile"]

    /// Every file whose pointers must resolve, relative to the root, sorted.
    static func files() -> [String] {
        var files = scannedRootFiles
        for folder in scannedFolders {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let relative = enumerator?.nextObject() as? String {
                // A tool's hidden folder (.swiftpm, a local .build) is nobody's prose.
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                let path = "\(folder)/\(relative)"
                var isDirectory: ObjCBool = false
                FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                if !isDirectory.boolValue, kind(of: path) != nil { files.append(path) }
            }
        }
        return files.sorted()
    }

    enum Kind { case markdown, swiftComments, hashComments }

    static func kind(of path: String) -> Kind? {
        if path.hasSuffix(".md") { return .markdown }
        if path.hasSuffix(".swift") { return .swiftComments }
        // The settings file, the unit, nginx's files: every comment there is prose for an operator.
        if path.hasPrefix("config/") || path == "Makefile" || path == "Containerfile" { return .hashComments }
        return nil
    }

    static func pointers(inFile path: String) throws -> [DocPointer] {
        guard let kind = kind(of: path) else { return [] }
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        return passages(of: text, kind: kind).flatMap { pointers(in: $0, file: path) }
    }

    static func passages(of text: String, kind: Kind) -> [DocPassage] {
        var passages: [DocPassage] = []
        var current: DocPassage?
        var inFence = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            var prose: String?
            switch kind {
            case .markdown:
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle() } else if !inFence { prose = line }
            case .swiftComments:
                prose = comment(of: line, marker: #"(?<!:)//"#).map { String($0.drop { $0 == "/" }) }
            case .hashComments:
                prose = comment(of: line, marker: #"(?:^|(?<=\s))#"#).map { String($0.drop { $0 == "#" }) }
            }
            if let prose {
                let trimmed = kind == .markdown ? prose : prose.trimmingCharacters(in: .whitespaces)
                if current == nil { current = DocPassage(firstLine: index + 1, text: trimmed) } else { current!.text += "\n" + trimmed }
            } else if let finished = current {
                passages.append(finished)
                current = nil
            }
        }
        if let current { passages.append(current) }
        return passages
    }

    /// The text after the comment marker, if the line has one.
    static func comment(of line: String, marker: String) -> Substring? {
        guard let range = line.range(of: marker, options: .regularExpression) else { return nil }
        return line[range.upperBound...]
    }

    /// A file name (`docs/caching.md`, `Fuzz/README.md`, or `README` alone), then an anchor, a
    /// heading's words in quotes (after a comma or colon, maybe on the next line), or unquoted
    /// words after a colon up to a closing parenthesis, as in "(README: run it)".
    static let textual = try! NSRegularExpression(pattern:
        #"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md|README)(?![\w/-]|\.md)(?:#([\w-]+)|[,:]?\s*"([^"\n]+)"|: ([^()"\n]+)\))?"#)

    static func pointers(in passage: DocPassage, file: String) -> [DocPointer] {
        var found: [DocPointer] = []
        for link in DocLinks.links(in: passage.text, firstLine: passage.firstLine)
        where !link.target.contains("://") && !link.target.hasPrefix("mailto:") {
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            found.append(DocPointer(file: file, line: link.line, written: "(\(link.target))", path: parts[0],
                                    heading: parts.count == 2 ? parts[1] : nil, headingIsAnchor: true, isLink: true))
        }
        // A link is checked once, by its target: its words often repeat the file's name.
        let text = passage.text.replacingOccurrences(of: #"\[[^\]]*\]\([^)\s]*\)"#, with: "[]", options: .regularExpression)
        for match in textual.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            func group(_ number: Int) -> String? { Range(match.range(at: number), in: text).map { String(text[$0]) } }
            let start = Range(match.range, in: text)!.lowerBound
            let line = passage.firstLine + text[..<start].filter { $0 == "\n" }.count
            let anchor = group(2)
            found.append(DocPointer(file: file, line: line, written: group(0)!.replacingOccurrences(of: "\n", with: " "),
                                    path: group(1)!, heading: anchor ?? group(3) ?? group(4)?.trimmingCharacters(in: .whitespaces),
                                    headingIsAnchor: anchor != nil, isLink: false))
        }
        return found
    }

    /// Why `pointer` leads nowhere, or nil when its file exists and has the heading it names.
    static func problem(_ pointer: DocPointer) -> String? {
        let folder = URL(fileURLWithPath: pointer.file).deletingLastPathComponent().relativePath
        let inFolder = folder == "." ? pointer.path : "\(folder)/\(pointer.path)"
        let candidates: [String]
        if pointer.path.isEmpty {
            candidates = [pointer.file]
        } else if pointer.isLink {
            candidates = [inFolder]
        } else {
            candidates = [pointer.path == "README" ? "README.md" : pointer.path, inFolder]
        }
        let urls = candidates.map { root.appendingPathComponent($0).standardizedFileURL }
        guard let file = urls.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            return "`\(pointer.written)` names no file (looked for \(candidates.joined(separator: ", ")))"
        }
        guard let heading = pointer.heading, file.pathExtension == "md" else { return nil }
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return "`\(pointer.written)`: \(file.path) is unreadable" }
        let slug = pointer.headingIsAnchor ? heading : DocLinks.slug(heading)
        guard !DocLinks.anchors(in: text).contains(slug) else { return nil }
        let name = file.path.replacingOccurrences(of: root.standardizedFileURL.path + "/", with: "")
        return "`\(pointer.written)`: \(name) has no heading " + (pointer.headingIsAnchor ? "#\(heading)" : "\"\(heading)\" (#\(slug))")
    }
}
