import ChildProcess
import Foundation
import Testing
import TestSupport

/// Every hostile file of ../shared/corpora/broken through `thumbd thumbnail`, in one batch:
/// no crash, no hang, bounded memory, and every refusal carries a known code.
@Suite(.enabled(if: TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
struct BrokenCorpusTests {
    static let knownCodes: Set<String> = ["corrupt_image", "truncated_image", "unsupported_format", "pixel_limit_exceeded"]

    @Test func everyBrokenFileIsHandled() throws {
        let rows = try TestPaths.manifest("broken")
        #expect(rows.count == 392)
        let root = TestPaths.corpus("broken")!
        let files = rows.map { root.appendingPathComponent($0["file"]!).path }
        let out = try CLI.temporaryDirectory()
        // --out-dir names outputs by base name; broken files share some, so number them through links.
        var inputs: [String] = []
        for (index, file) in files.enumerated() {
            let link = out.appendingPathComponent("in/\(index)-\((file as NSString).lastPathComponent)")
            try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: file)
            inputs.append(link.path)
        }
        // Two jobs at once, each allowed at most the default 512 MiB decode budget: 1.5 GiB of address
        // space is room for honest work and none for a 280 MP or 4 Gpx allocation.
        let result = try CLI.run(["thumbnail"] + inputs + ["--out-dir", out.appendingPathComponent("thumbs").path, "--size", "64", "-q", "--jobs", "2"],
                                 addressSpaceMiB: 1536, timeout: 600)
        #expect(!result.timedOut, "thumbd hung on the broken corpus")
        #expect(result.status == 1, "exit \(result.status): a crash shows as 128+signal\n\(result.stderrText.suffix(2000))")

        let codes = CLI.errorCodes(result.stderrText)
        for (index, row) in rows.enumerated() {
            let input = inputs[index]
            let verdict = row["libs_verdict"] ?? ""
            if let code = codes[input] {
                #expect(Self.knownCodes.contains(code), "\(row["file"]!): unknown code \(code)")
                if verdict == "UNSUPPORTED" { #expect(code == "unsupported_format", "\(row["file"]!)") }
            } else {
                #expect(verdict == "OK" || verdict == "WARN", "\(row["file"]!) (\(verdict)) was not refused")
            }
        }
        for special in ["sharp/giant-image.jpg", "sharp/65536-uint32-limit.png"] {
            let index = try #require(rows.firstIndex { $0["file"] == special })
            #expect(codes[inputs[index]] == "pixel_limit_exceeded", "\(special)")
        }
        let misnamed = try #require(rows.firstIndex { $0["file"] == "misc/mozilla_jpg-size-6x6.jpg.is-really-png.jpg" })
        #expect(codes[inputs[misnamed]] == nil, "a PNG named .jpg must decode by its magic bytes")
    }
}
