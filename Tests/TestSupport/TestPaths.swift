import Foundation

/// Where tests find their files. `TestImages/` ships with the repo; the third-party corpora live in
/// `../shared/corpora` beside the checkout (or `THUMBD_CORPORA`) and may be absent.
public enum TestPaths {
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/TestPaths.swift
        return url
    }()

    public static let testImages = packageRoot.appendingPathComponent("TestImages")

    /// A program this package builds (`thumbd`, `thumbd-bench`): SwiftPM puts it in the build
    /// products folder, beside the test binary.
    public static func builtProduct(_ name: String) -> String {
        let testBinary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: testBinary).deletingLastPathComponent()
        // On macOS the binary lives inside the .xctest bundle.
        while folder.pathExtension == "xctest" || folder.lastPathComponent == "MacOS" || folder.lastPathComponent == "Contents" {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent(name).path
    }

    /// The shared corpora folder, or nil when it is not on this machine.
    public static let corpora: URL? = {
        let candidate = ProcessInfo.processInfo.environment["THUMBD_CORPORA"].map { URL(fileURLWithPath: $0) }
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? candidate : nil
    }()

    /// A message for `.requires` traits, so a missing corpus is loud, not silent.
    public static let corporaMissing = "../shared/corpora is absent (set THUMBD_CORPORA): corpus tests skipped"

    public static func corpus(_ relative: String) -> URL? {
        corpora?.appendingPathComponent(relative)
    }

    /// Every JPEG of the corpus folders that hold them (photos, EXIF orientations and the decoder
    /// conformance sets: greyscale, CMYK, restart markers, progressive, non-interleaved), sorted.
    public static func corpusJPEGs() -> [URL] {
        ["photos", "jpeg/exif-orientation", "jpeg/jpeg-decoder", "jpeg/libjpeg-turbo", "jpeg/pillow", "jpeg/mozilla"].flatMap { folder -> [URL] in
            guard let url = corpus(folder), let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return [] }
            return names.filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
                .map { url.appendingPathComponent($0) }
        }
    }

    public static func bytes(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    /// Rows of a corpus `MANIFEST.tsv`, keyed by column name.
    public static func manifest(_ folder: String) throws -> [[String: String]] {
        guard let url = corpus(folder)?.appendingPathComponent("MANIFEST.tsv") else { return [] }
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        return lines.dropFirst().map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(header, fields))
        }
    }
}
