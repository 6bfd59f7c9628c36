import ChildProcess
import Foundation
import Testing
import TestSupport

/// `thumbd --version` against independent sources: git for the commit, pkg-config for the libraries.
struct VersionCommandTests {
    /// "libjpeg-turbo 2.1.5, libpng 1.6.39, …" as name → version.
    static func libraries(_ line: String) -> [String: String] {
        var versions: [String: String] = [:]
        for entry in line.components(separatedBy: ", ") {
            let parts = entry.split(separator: " ")
            if parts.count == 2 { versions[String(parts[0])] = String(parts[1]) }
        }
        return versions
    }

    @Test func versionNamesTheBuildsCommitAndTheLibrariesInUse() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        try #require(lines.count == 3, "\(result.stdoutText)")

        let first = try #require(lines[0].wholeMatch(of: /thumbd (\d+\.\d+\.\d+) \(commit ([0-9a-f]{12}(?:-dirty)?|unknown), built (\d{4}-\d\d-\d\d)\)/),
                                 "\(lines[0])")
        let commit = String(first.output.2)
        let git = TestPaths.packageRoot.appendingPathComponent(".git")
        if FileManager.default.fileExists(atPath: git.path), ChildProcess.isInstalled("git") {
            let head = try ChildProcess.run("git", ["-C", TestPaths.packageRoot.path, "rev-parse", "--short=12", "HEAD"], timeoutSeconds: 30)
            #expect(head.status == 0)
            let headCommit = head.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(commit.replacingOccurrences(of: "-dirty", with: "") == headCommit)
        }

        let libraries = Self.libraries(lines[1])
        #expect(Set(libraries.keys) == ["libjpeg-turbo", "libpng", "libwebp", "libavif", "libheif", "giflib", "libtiff", "libjxl", "lcms2", "SQLite"], "\(lines[1])")
        var compared = 0
        for (name, module) in [("libjpeg-turbo", "libturbojpeg"), ("libpng", "libpng"), ("libwebp", "libwebp"), ("libavif", "libavif"),
                               ("libheif", "libheif"), ("giflib", "libgif"), ("libtiff", "libtiff-4"), ("libjxl", "libjxl"), ("lcms2", "lcms2"), ("SQLite", "sqlite3")] {
            guard ChildProcess.isInstalled("pkg-config"),
                  let packaged = try? ChildProcess.run("pkg-config", ["--modversion", module], timeoutSeconds: 30),
                  packaged.status == 0 else {
                try Requirement.unmet("pkg-config does not know \(module): the \(name) version cannot be compared")
                continue
            }
            #expect(libraries[name] == packaged.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines), "\(name)")
            compared += 1
        }
        print("--version: \(compared) of 10 library versions compared with pkg-config")

        #expect(lines[2].wholeMatch(of: /swift \d+\.\d+( or later)?/) != nil, "\(lines[2])")
    }
}
