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
        let codes = try Self.thumbnailBatch(inputs, out: out, size: 64, timeout: 600, what: "the broken corpus")
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

    /// `thumbd thumbnail` over a batch of hostile files, two jobs at once, each allowed at most the
    /// default 512 MiB decode budget: 1.5 GiB of address space is room for honest work and none for
    /// a 280 MP or 4 Gpx allocation. Expects no hang and exit 1 (some refused, no crash); the codes
    /// by input path.
    static func thumbnailBatch(_ inputs: [String], out: URL, size: Int, timeout: Double, what: String) throws -> [String: String] {
        let result = try CLI.run(["thumbnail"] + inputs + ["--out-dir", out.appendingPathComponent("thumbs").path, "--size", "\(size)", "-q", "--jobs", "2"],
                                 addressSpaceMiB: 1536, timeout: timeout)
        #expect(!result.timedOut, "thumbd hung on \(what)")
        #expect(result.status == 1, "exit \(result.status): a crash shows as 128+signal\n\(result.stderrText.suffix(2000))")
        return CLI.errorCodes(result.stderrText)
    }
}

/// Broken HEIC files through `thumbd thumbnail` in one batch, as the broken corpus goes (it holds no
/// HEIC): made here from a heif-enc file, cut at many points and with flipped bytes, plus a grid
/// over the pixel limit behind a small ispe. No crash, no hang, bounded memory, known codes.
@Suite(.enabled(if: HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct BrokenHEICTests {
    @Test func everyBrokenHEICIsHandled() throws {
        let photo = try HEIFEnc.encode(PhonePhoto.synthetic(width: 80, height: 60, seed: 21))
        let grid = try HEIFEnc.encode(PhonePhoto.synthetic(width: 79, height: 59, seed: 22))
        var files: [(name: String, bytes: [UInt8], expected: String?)] = []
        for source in [("photo", photo), ("grid", grid)] {
            for fraction in [0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 0.99] {
                let length = Int(Double(source.1.count) * fraction)
                files.append(("\(source.0)-cut-\(length).heic", Array(source.1.prefix(length)), "truncated_image"))
            }
            var random = SeededRandom(seed: UInt64(source.1.count))
            for index in 0..<12 {
                var damaged = source.1
                for _ in 0..<4 { damaged[Int(random.next() % UInt64(damaged.count))] ^= 0xFF }
                files.append(("\(source.0)-flipped-\(index).heic", damaged, nil))
            }
        }
        // A 1x1 grid whose descriptor says 30000x30000 behind a 79x59 ispe: libheif would allocate ~1.3 GiB.
        let idat = try #require((0..<grid.count - 4).first { Array(grid[$0..<$0 + 4]) == Array("idat".utf8) })
        var lying = grid
        lying.replaceSubrange(idat + 8..<idat + 12, with: [0x75, 0x30, 0x75, 0x30])
        files.append(("grid-30000x30000.heic", lying, "pixel_limit_exceeded"))

        let dir = try CLI.temporaryDirectory()
        var inputs: [String] = []
        for file in files {
            let url = dir.appendingPathComponent("in/\(file.name)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.bytes).write(to: url)
            inputs.append(url.path)
        }
        let codes = try BrokenCorpusTests.thumbnailBatch(inputs, out: dir, size: 32, timeout: 300, what: "broken HEIC")
        var tally: [String: Int] = [:]
        for (file, input) in zip(files, inputs) {
            let code = codes[input]
            tally[code ?? "decoded", default: 0] += 1
            if let code { #expect(BrokenCorpusTests.knownCodes.contains(code), "\(file.name): unknown code \(code)") }
            if let expected = file.expected { #expect(code == expected, "\(file.name): \(code ?? "decoded")") }
        }
        print("broken HEIC: \(files.count) files, \(tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }
}
