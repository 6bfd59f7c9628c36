import ChildProcess
import Foundation
import ImageCore
import Testing
import TestSupport

/// Every hostile file of ../shared/corpora/broken through `thumbd thumbnail`, in one batch:
/// no crash, no hang, bounded memory, and every refusal carries a known code.
@Suite(.requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
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
        // The corpus's verdicts are those of JPEG, PNG and WebP decoders, and call its GIFs unsupported;
        // thumbd reads GIF now, so Pillow judges those: what it cannot decode, thumbd must refuse.
        let gifRows = Set(rows.indices.filter { index in
            (try? SniffedFormat.sniff(TestPaths.bytes(URL(fileURLWithPath: files[index])))) == .supported(.gif)
        })
        // Only the GIFs' verdicts need Pillow: the rest of the corpus is judged without it.
        let pillowOnGIFs = Pillow.available ? try Pillow.decode(gifRows.sorted().map { URL(fileURLWithPath: files[$0]) }) : [:]
        for (index, row) in rows.enumerated() {
            let input = inputs[index]
            let verdict = row["libs_verdict"] ?? ""
            if gifRows.contains(index) {
                let pillowDecodes = (try? pillowOnGIFs[URL(fileURLWithPath: files[index])]?.get()) != nil
                if let code = codes[input] {
                    #expect(code == "corrupt_image" || code == "truncated_image", "\(row["file"]!): a GIF refused as \(code)")
                } else if Pillow.available {
                    #expect(pillowDecodes, "\(row["file"]!): decoded, though Pillow cannot")
                }
            } else if let code = codes[input] {
                #expect(Self.knownCodes.contains(code), "\(row["file"]!): unknown code \(code)")
                if verdict == "UNSUPPORTED" { #expect(code == "unsupported_format", "\(row["file"]!)") }
            } else {
                #expect(verdict == "OK" || verdict == "WARN", "\(row["file"]!) (\(verdict)) was not refused")
            }
        }
        #expect(gifRows.count == rows.filter { $0["libs_verdict"] == "UNSUPPORTED" }.count, "the corpus's unsupported files are its GIFs")
        for special in ["sharp/giant-image.jpg", "sharp/65536-uint32-limit.png"] {
            let index = try #require(rows.firstIndex { $0["file"] == special })
            #expect(codes[inputs[index]] == "pixel_limit_exceeded", "\(special)")
        }
        let misnamed = try #require(rows.firstIndex { $0["file"] == "misc/mozilla_jpg-size-6x6.jpg.is-really-png.jpg" })
        #expect(codes[inputs[misnamed]] == nil, "a PNG named .jpg must decode by its magic bytes")
        if !Pillow.available { try Requirement.unmet("\(Pillow.missing): the GIFs thumbd decodes were not judged") }
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

    /// Writes `files` (numbered, so names never collide), runs them through `thumbnailBatch`, and
    /// checks every refusal is a known code and every expected one is what came; the tally by code.
    static func checkBatch(_ files: [(name: String, bytes: [UInt8], expected: String?)], what: String) throws -> [String: Int] {
        let dir = try CLI.temporaryDirectory()
        var inputs: [String] = []
        for (index, file) in files.enumerated() {
            let url = dir.appendingPathComponent("in/\(index)-\(file.name)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.bytes).write(to: url)
            inputs.append(url.path)
        }
        let codes = try thumbnailBatch(inputs, out: dir, size: 32, timeout: 300, what: what)
        var tally: [String: Int] = [:]
        for (file, input) in zip(files, inputs) {
            let code = codes[input]
            tally[code ?? "decoded", default: 0] += 1
            if let code { #expect(knownCodes.contains(code), "\(file.name): unknown code \(code)") }
            if let expected = file.expected { #expect(code == expected, "\(file.name): \(code ?? "decoded")") }
        }
        return tally
    }
}

/// Broken HEIC files through `thumbd thumbnail` in one batch, as the broken corpus goes (it holds no
/// HEIC): made here from a heif-enc file, cut at many points and with flipped bytes, plus a grid
/// over the pixel limit behind a small ispe. No crash, no hang, bounded memory, known codes.
@Suite(.requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
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

        let tally = try BrokenCorpusTests.checkBatch(files, what: "broken HEIC")
        print("broken HEIC: \(files.count) files, \(tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }
}

/// Broken GIF, TIFF, BMP and JPEG XL files through `thumbd thumbnail` in one batch, as the broken
/// corpus goes (it holds none of them): each format's committed test files cut at many points and
/// with flipped bytes, plus headers that claim 65535 x 65535 or more over a few bytes. No crash, no
/// hang, bounded memory, known codes; a cut is `truncated_image`, a lie `pixel_limit_exceeded`.
struct BrokenInputFormatTests {
    static let sources: [(format: String, files: [String])] = [
        ("gif", ["still.gif", "interlaced.gif", "animated.gif"]),
        ("tiff", ["grey8.tif", "bigtiff-rgb8.tif", "cmyk8.tif"]),
        ("bmp", ["pillow_rgb24.bmp", "rle8.bmp", "v5_embedded_profile.bmp"]),
        ("jxl", ["lossy_rgb_48x32.jxl", "lossless_rgba_32x24.jxl", "container_lossy_rgb_48x32.jxl"]),
    ]

    /// A copy of `bytes` whose header claims a huge canvas, or nil where this test cannot say one
    /// simply (JPEG XL's sizes are bit-packed: JXLCodecTests lies in them).
    static func lying(_ format: String, _ bytes: [UInt8]) -> [UInt8]? {
        var data = bytes
        switch format {
        case "gif":
            data.replaceSubrange(6..<10, with: [0xFF, 0xFF, 0xFF, 0xFF])
        case "bmp":
            data.replaceSubrange(18..<26, with: [0xA0, 0x86, 0x01, 0x00, 0xA0, 0x86, 0x01, 0x00])  // 100000 x 100000
        case "tiff":
            // ImageWidth and ImageLength entries (classic little-endian TIFF, SHORT or LONG, count 1) set to 65535.
            guard data.starts(with: [0x49, 0x49, 0x2A, 0x00]) else { return nil }
            var changed = 0
            for tag: UInt8 in [0x00, 0x01] {
                for type: UInt8 in [3, 4] {
                    let entry: [UInt8] = [tag, 0x01, type, 0, 1, 0, 0, 0]
                    guard let at = (0..<(data.count - 12)).first(where: { Array(data[$0..<$0 + 8]) == entry }) else { continue }
                    data.replaceSubrange(at + 8..<at + 12, with: [0xFF, 0xFF, 0, 0])
                    changed += 1
                }
            }
            if changed < 2 { return nil }
        default:
            return nil
        }
        return data
    }

    @Test func everyBrokenInputIsHandled() throws {
        var files: [(name: String, bytes: [UInt8], expected: String?)] = []
        for (format, names) in Self.sources {
            for name in names {
                let bytes = try TestPaths.bytes(TestPaths.testImages.appendingPathComponent("\(format)/\(name)"))
                // Past the middle a cut may leave what is shown whole (an animation's first frame, a
                // BMP's pixels before its trailing profile): decoded or refused, never a crash.
                for fraction in [0.1, 0.3, 0.5, 0.7, 0.9] {
                    let length = max(4, Int(Double(bytes.count) * fraction))
                    files.append(("\(name)-cut-\(length)", Array(bytes.prefix(length)), fraction <= 0.5 ? "truncated_image" : nil))
                }
                var random = SeededRandom(seed: UInt64(bytes.count))
                for index in 0..<8 {
                    var damaged = bytes
                    for _ in 0..<3 { damaged[Int(random.next() % UInt64(damaged.count))] ^= 0xFF }
                    files.append(("\(name)-flipped-\(index)", damaged, nil))
                }
                if let lie = Self.lying(format, bytes) { files.append(("\(name)-huge", lie, "pixel_limit_exceeded")) }
            }
        }
        let tally = try BrokenCorpusTests.checkBatch(files, what: "broken GIF, TIFF, BMP and JPEG XL")
        #expect(files.filter { $0.name.hasSuffix("-huge") }.count == 8, "a lie for every GIF, BMP and classic TIFF source")
        print("broken GIF, TIFF, BMP, JPEG XL: \(files.count) files, \(tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }
}
