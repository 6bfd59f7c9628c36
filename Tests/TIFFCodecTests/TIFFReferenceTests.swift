import Foundation
import ImageCore
import ImageQuality
import Testing
import TIFFCodec

/// Every committed file decoded by thumbd and by Pillow (its own libtiff build, and its own
/// unpackers for uncompressed strips), compared pixel for pixel.
@Suite("TIFF decodes against Pillow", .requires(PillowDecode.available, "python3 with Pillow is needed for the reference decodes"))
struct TIFFReferenceTests {
    enum Match: Sendable {
        /// Lossless and 8-bit: the two decoders must agree on every byte.
        case exact
        /// 16-bit RGB samples (Pillow keeps the high byte, thumbd rounds) or associated alpha divided
        /// out (Pillow rounds down, thumbd to nearest): one level at most.
        case withinOne
        /// JPEG: libjpeg builds may differ in their IDCT and upsampling.
        case ssim
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let match: Match
        var hasAlpha = false
        /// Another file whose Pillow decode is the reference (the same pixels stored another way).
        var reference: String? = nil
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "rgb8-none.tif", match: .exact),
        Case(file: "rgb8-lzw.tif", match: .exact),
        Case(file: "rgb8-deflate.tif", match: .exact),
        Case(file: "rgb8-packbits.tif", match: .exact),
        Case(file: "rgb8-icc.tif", match: .exact),
        Case(file: "rgba8-unassociated.tif", match: .exact, hasAlpha: true),
        Case(file: "rgba8-associated.tif", match: .withinOne, hasAlpha: true),
        Case(file: "grey8.tif", match: .exact),
        // The script rounds Pillow's 16-bit grey to 8 bits as thumbd must: exact, so truncation would fail.
        Case(file: "grey16.tif", match: .exact),
        Case(file: "grey-alpha8.tif", match: .exact, hasAlpha: true),
        Case(file: "grey4-miniswhite.tif", match: .exact),
        Case(file: "bilevel-group4.tif", match: .exact),
        Case(file: "bilevel-miniswhite.tif", match: .exact),
        Case(file: "palette8.tif", match: .exact),
        Case(file: "palette4.tif", match: .exact),
        Case(file: "palette4-8bit-colormap.tif", match: .exact, reference: "palette8.tif"),
        Case(file: "cmyk8.tif", match: .exact),
        Case(file: "rgb16-deflate-predictor-bigendian.tif", match: .withinOne),
        Case(file: "rgba16.tif", match: .withinOne, hasAlpha: true),
        Case(file: "tiled-rgb8.tif", match: .exact),
        Case(file: "separate-rgb8.tif", match: .exact),
        Case(file: "separate-tiled-rgba8.tif", match: .exact, hasAlpha: true),
        Case(file: "bigtiff-rgb8.tif", match: .exact),
        Case(file: "multipage.tif", match: .exact),
        Case(file: "ycbcr420-deflate.tif", match: .exact),
        Case(file: "rgb8-jpeg.tif", match: .ssim),
        Case(file: "ycbcr-jpeg444.tif", match: .ssim),
        Case(file: "ycbcr-jpeg420-strips.tif", match: .ssim),
        Case(file: "ycbcr-jpeg420-tiled.tif", match: .ssim),
    ]

    @Test("decodes as Pillow does", arguments: cases)
    func againstPillow(_ test: Case) throws {
        let data = try TIFFTestFiles.bytes(test.file)
        let decoded = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let reference = try PillowDecode.decode(TIFFTestFiles.url(test.reference ?? test.file))
        #expect(decoded.pixels.width == reference.width && decoded.pixels.height == reference.height)
        #expect(decoded.info == (try TIFFCodec.readInfo(data, limits: DecodeLimits())))
        #expect(decoded.info.format == .tiff && decoded.info.hasAlpha == test.hasAlpha && decoded.pixels.hasAlpha == test.hasAlpha)
        #expect(decoded.samples == (reference.kind == "cmyk" ? .cmyk(inverted: false) : .rgba))
        if !test.hasAlpha && reference.kind == "rgba" {
            #expect(stride(from: 3, to: decoded.pixels.pixels.count, by: 4).allSatisfy { decoded.pixels.pixels[$0] == 255 })
        }
        let worst = Compare.maxDifference(decoded.pixels.pixels, reference.bytes)
        switch test.match {
        case .exact:
            #expect(worst.difference == 0, "\(test.file): differs by \(worst.difference) at pixel \(worst.at) (Pillow mode \(reference.mode))")
        case .withinOne:
            print("TIFF \(test.file): largest difference \(worst.difference) against Pillow (mode \(reference.mode))")
            #expect(worst.difference <= 1, "\(test.file): differs by \(worst.difference) at pixel \(worst.at) (Pillow mode \(reference.mode))")
        case .ssim:
            let ssim = SSIM.compare(decoded.pixels, reference.pixels, channels: .rgb)
            print("TIFF \(test.file): SSIM \(ssim) against Pillow, largest difference \(worst.difference)")
            #expect(ssim >= 0.97, "\(test.file): SSIM \(ssim)")
        }
    }

    @Test("uncompressed YCbCr 4:2:0 decodes as its Deflate twin does")
    func uncompressedYCbCr() throws {
        let none = try TIFFCodec.decode(try TIFFTestFiles.bytes("ycbcr420-none.tif"), limits: DecodeLimits(), scale: .fullSize)
        let deflate = try TIFFCodec.decode(try TIFFTestFiles.bytes("ycbcr420-deflate.tif"), limits: DecodeLimits(), scale: .fullSize)
        let same = none.pixels == deflate.pixels
        #expect(same)
        #expect(none.info.width == 44 && none.info.height == 30 && !none.info.hasAlpha)
    }

    /// Pillow cannot open CMYK with an alpha sample; the file holds cmyk8.tif's inks and an alpha of
    /// 255 in the left half, 128 in the third quarter and 0 in the last (Scripts/tiff_testimages.py).
    @Test("CMYK with alpha keeps CMYK, its inks flattened onto the paper by the alpha")
    func cmykWithAlpha() throws {
        let decoded = try TIFFCodec.decode(try TIFFTestFiles.bytes("cmyk-alpha8.tif"), limits: DecodeLimits(), scale: .fullSize)
        let inks = try PillowDecode.decode(TIFFTestFiles.url("cmyk8.tif"))
        #expect(decoded.samples == .cmyk(inverted: false) && !decoded.info.hasAlpha)
        let width = decoded.pixels.width
        var expected = inks.bytes
        for i in 0..<expected.count {
            let x = (i / 4) % width
            let alpha = x < width / 2 ? 255 : x < 3 * width / 4 ? 128 : 0
            expected[i] = UInt8((Int(expected[i]) * alpha + 127) / 255)
        }
        let worst = Compare.maxDifference(decoded.pixels.pixels, expected)
        #expect(worst.difference == 0, "differs by \(worst.difference) at pixel \(worst.at)")
    }

    @Test("the first page of a multi-page file, whatever the other pages hold")
    func firstPage() throws {
        let info = try TIFFCodec.readInfo(try TIFFTestFiles.bytes("multipage.tif"), limits: DecodeLimits())
        #expect(info.width == 45 && info.height == 31 && !info.isAnimated)
    }

    @Test("floating-point samples and CIE L*a*b* are refused as unsupported", arguments: ["float32-grey.tif", "lab8.tif"])
    func refusedKinds(_ file: String) throws {
        let data = try TIFFTestFiles.bytes(file)
        let error = #expect(throws: ImageError.self) { _ = try TIFFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .unsupportedFormat, "\(String(describing: error))")
        print("TIFF \(file): \(String(describing: error))")
    }

    @Test("the signature is checked: other formats are refused, TIFF and BigTIFF are sniffed")
    func signature() throws {
        #expect(TIFFCodec.sniff(try TIFFTestFiles.bytes("rgb8-lzw.tif")))
        #expect(TIFFCodec.sniff(try TIFFTestFiles.bytes("bigtiff-rgb8.tif")))
        #expect(TIFFCodec.sniff(try TIFFTestFiles.bytes("bilevel-miniswhite.tif")))  // big-endian
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 32)
        #expect(!TIFFCodec.sniff(png))
        let error = #expect(throws: ImageError.self) { _ = try TIFFCodec.decode(png, limits: DecodeLimits(), scale: .fullSize) }
        #expect(error?.code == .unsupportedFormat)
        let empty = #expect(throws: ImageError.self) { _ = try TIFFCodec.readInfo([], limits: DecodeLimits()) }
        #expect(empty?.code == .corruptImage)
    }

    @Test("the library version is a bare version number")
    func version() {
        let version = TIFFCodec.libraryVersion
        #expect(version.split(separator: ".").count >= 2 && version.allSatisfy { $0.isNumber || $0 == "." }, "\(version)")
    }
}
