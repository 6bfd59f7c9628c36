import Foundation
import ImageCore
import PNGCodec
import Testing
import TestSupport

/// The PngSuite, against hashes made by an independent decoder (pypng, Scripts/png_reference.py).
enum PNGSuite {
    struct Reference: Sendable {
        var width: Int
        var height: Int
        var sha256: String
    }

    /// Valid PngSuite files that cannot be compared with the reference, with the reason
    /// (also written down in TestImages/README.md). Empty: every valid file matches.
    static let exclusions: [String: String] = [:]

    /// TestImages/pngsuite-rgba.sha256.tsv, keyed by file name.
    static let references: [String: Reference] = {
        let url = TestPaths.testImages.appendingPathComponent("pngsuite-rgba.sha256.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var table: [String: Reference] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 4, let w = Int(f[1]), let h = Int(f[2]) else { continue }
            table[f[0]] = Reference(width: w, height: h, sha256: f[3])
        }
        return table
    }()

    static let manifest: [[String: String]] = (try? TestPaths.manifest("pngsuite")) ?? []

    /// Files the manifest expects to decode (names not starting with "x").
    static let validFiles: [String] = manifest
        .filter { $0["expected"] == "decode" && $0["file"]?.hasPrefix("x") == false && $0["file"]?.hasSuffix(".png") == true }
        .compactMap { $0["file"] }
        .sorted()

    /// The deliberately corrupt x*.png files.
    static let corruptFiles: [String] = manifest
        .compactMap { $0["file"] }
        .filter { $0.hasPrefix("x") && $0.hasSuffix(".png") }
        .sorted()

    static func bytes(_ name: String) throws -> [UInt8] {
        try TestPaths.bytes(try #require(TestPaths.corpus("pngsuite/\(name)")))
    }
}

@Suite("PngSuite")
struct PNGSuiteTests {
    @Test("the reference table covers exactly the valid PngSuite files",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"))
    func referenceCoversSuite() {
        #expect(PNGSuite.validFiles.count == 162)
        #expect(PNGSuite.corruptFiles.count == 14)
        let expected = Set(PNGSuite.validFiles).subtracting(PNGSuite.exclusions.keys)
        #expect(Set(PNGSuite.references.keys) == expected)
    }

    @Test("every valid PngSuite file decodes to the reference RGBA8 bytes",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"),
          arguments: PNGSuite.validFiles)
    func decodesToReference(_ name: String) throws {
        if let reason = PNGSuite.exclusions[name] {
            withKnownIssue("\(name) is excluded: \(reason)") { Issue.record("excluded") }
            return
        }
        let reference = try #require(PNGSuite.references[name], "no reference hash for \(name)")
        let data = try PNGSuite.bytes(name)
        let image = try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.width == reference.width)
        #expect(image.pixels.height == reference.height)
        #expect(image.info.width == reference.width && image.info.height == reference.height)
        #expect(image.info.format == .png)
        #expect(SHA256.hex(image.pixels.pixels) == reference.sha256, "\(name): decoded pixels differ from pypng's")

        // hasAlpha: only an alpha colour type (4, 6) or a tRNS chunk; PngSuite names say which.
        let colorType = name.dropFirst(4).prefix(1)  // e.g. basn "6" a08
        let hasTRNS = PNGSuiteTests.hasChunk(data, "tRNS")
        #expect(image.info.hasAlpha == (colorType == "4" || colorType == "6" || hasTRNS), "\(name): hasAlpha")
        #expect(image.pixels.hasAlpha == image.info.hasAlpha)
        if !image.info.hasAlpha {
            #expect(stride(from: 3, to: image.pixels.pixels.count, by: 4).allSatisfy { image.pixels.pixels[$0] == 255 })
        }

        let info = try PNGCodec.readInfo(data)
        #expect(info == image.info)
    }

    @Test("every x*.png is refused with an ImageError",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"),
          arguments: PNGSuite.corruptFiles)
    func corruptFilesAreRefused(_ name: String) throws {
        let data = try PNGSuite.bytes(name)
        let error = try #require(PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }, "\(name) decoded but is corrupt")
        #expect(error.code == .corruptImage, "\(name): \(error)")
        #expect(!error.message.isEmpty)
        // The scaled path reads rows one by one; it must refuse the same way.
        let scaled = PNGTestSupport.error { () throws(ImageError) in
            try PNGCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.25))
        }
        #expect(scaled?.code == .corruptImage, "\(name) scaled: \(String(describing: scaled))")
    }

    @Test("libpng's refusals read as sentences",
          .requires(TestPaths.corpora != nil, "\(TestPaths.corporaMissing)"))
    func messages() throws {
        func message(_ name: String) throws -> String {
            let data = try PNGSuite.bytes(name)
            return PNGTestSupport.error { () throws(ImageError) in try PNGCodec.readInfo(data) }?.message ?? "decoded"
        }
        #expect(try message("xhdn0g08.png") == "bad CRC in IHDR")
        #expect(try message("xs1n0g01.png") == "not a PNG file (bad signature)")
        #expect(try message("xcrn0g04.png").contains("ASCII"))
        #expect(try message("xc1n0g08.png").hasPrefix("corrupt PNG: Invalid IHDR data ("))
    }

    static func hasChunk(_ data: [UInt8], _ type: String) -> Bool {
        PNGTestSupport.chunkTypes(data).contains(type)
    }
}
