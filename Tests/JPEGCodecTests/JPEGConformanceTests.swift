import Foundation
import ImageCore
import JPEGCodec
import Testing
import TestSupport

/// The JPEG conformance corpus against Pillow's decode (signatures in TestImages/jpeg-reference.tsv).
@Suite(.requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
struct JPEGConformanceTests {
    struct Reference: CustomTestStringConvertible, Sendable {
        var file: String, width: Int, height: Int, signature: [Int]
        var testDescription: String { file }
    }

    static let references: [Reference] = {
        guard let text = try? String(contentsOf: TestPaths.testImages.appendingPathComponent("jpeg-reference.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t").map(String.init)
            return Reference(file: f[0], width: Int(f[1])!, height: Int(f[2])!, signature: Signature.parse(hex: f[3]))
        }
    }()

    @Test("decodes like an independent decoder", arguments: references)
    func matchesPillow(_ reference: Reference) throws {
        let data = try TestPaths.bytes(TestPaths.corpus("jpeg/\(reference.file)")!)
        let decoded = try JPEGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.width == reference.width && decoded.pixels.height == reference.height)
        let difference = Signature.maxDifference(Signature.of(decoded.pixels), reference.signature)
        #expect(difference <= 3, "signature differs by \(difference) from Pillow's decode")
    }

    @Test func referencesCoverTheCorpus() {
        #expect(Self.references.count >= 100)
    }

    @Test("refused as unsupported", arguments: [
        "jpeg-decoder/lossless_MR4_12bit.jpg", "jpeg-decoder/lossless_jpeg_lossless_sel1.jpg",
        "libjpeg-turbo/monkey12.jpg", "libjpeg-turbo/testorig12.jpg",
    ])
    func unsupportedKinds(_ file: String) throws {
        let data = try TestPaths.bytes(TestPaths.corpus("jpeg/\(file)")!)
        #expect(throws: ImageError.self) { try JPEGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        do {
            _ = try JPEGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        } catch {
            #expect(error.code == .unsupportedFormat)
        }
    }

    /// Policy: libjpeg's recoverable corrupt-data warnings are accepted (the image is complete);
    /// these are the corpus files that warn.
    @Test("damaged but complete files decode", arguments: [
        "jpeg-decoder/extraneous-data.jpg", "jpeg-decoder/mjpeg.jpg", "jpeg-decoder/partial_progressive.jpg",
        "jpeg-decoder/progressive-missing-dc.jpg", "pillow/jpeg_ff00_header.jpg", "pillow/junk_jpeg_header.jpg",
    ])
    func warningsAccepted(_ file: String) throws {
        let data = try TestPaths.bytes(TestPaths.corpus("jpeg/\(file)")!)
        let decoded = try JPEGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels.width > 0)
    }

    /// Its primary image stops 14 bytes into the scan: libjpeg would pad it with grey.
    @Test func truncatedUltraHDRIsRefused() throws {
        let data = try TestPaths.bytes(TestPaths.corpus("jpeg/pillow/ultrahdr.jpg")!)
        #expect(throws: ImageError(.truncatedImage, "JPEG data ends before its end-of-image marker (truncated file)")) {
            try JPEGCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }
    }

    @Test("EXIF orientation is read", arguments: 1...8)
    func orientation(_ value: Int) throws {
        let data = try TestPaths.bytes(TestPaths.corpus("jpeg/exif-orientation/Landscape_\(value).jpg")!)
        #expect(try JPEGCodec.readInfo(data).orientation.rawValue == UInt8(value))
    }

    /// A progressive decode keeps every coefficient of the image; the limit must count them.
    @Test func progressiveCoefficientsCountAgainstTheLimit() throws {
        let baseline = try TestPaths.bytes(TestPaths.corpus("jpeg/jxl-flower/flower.png.im_q85_420.jpg")!)
        let progressive = try TestPaths.bytes(TestPaths.corpus("jpeg/jxl-flower/flower.png.im_q85_420_progr.jpg")!)
        let limits = DecodeLimits(maxPixels: 50_000_000, maxDecodeBytes: 4 << 20)
        let eighth = DecodeScaleHint(minimumScale: 0.125)
        _ = try JPEGCodec.decode(baseline, limits: limits, scale: eighth)
        #expect(throws: ImageError.self) { try JPEGCodec.decode(progressive, limits: limits, scale: eighth) }
        _ = try JPEGCodec.decode(progressive, limits: DecodeLimits(), scale: eighth)
    }
}
