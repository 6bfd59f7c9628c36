import Foundation

/// Markdown links and GitHub's heading anchors.
enum DocLinks {
    struct Link { var line: Int; var target: String }

    /// `[text](target)` and `![alt](target)` outside fenced blocks and code spans. `firstLine`: the
    /// line number of the text's first line, for text taken from the middle of a file.
    static func links(in text: String, firstLine: Int = 1) -> [Link] {
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var links: [Link] = []
        var inFence = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            let plain = line.replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression)
            for match in pattern.matches(in: plain, range: NSRange(plain.startIndex..., in: plain)) {
                if let range = Range(match.range(at: 1), in: plain) { links.append(Link(line: firstLine + index, target: String(plain[range]))) }
            }
        }
        return links
    }

    /// Headings as GitHub makes anchors of them; a repeated heading gets `-1`, `-2`.
    static func anchors(in text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors = Set<String>()
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#") else { continue }
            let slug = slug(line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces))
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// GitHub's anchor of a heading: lower case, spaces to `-`, other punctuation (but `-` and `_`) dropped.
    static func slug(_ title: String) -> String {
        String(title.lowercased().compactMap { c -> Character? in
            if c == " " { return "-" }
            return c.isLetter || c.isNumber || c == "-" || c == "_" ? c : nil
        })
    }
}
