import Foundation
import ImageCore
import TestSupport
import Testing
import WebPCodec

/// Our decode against Pillow's (its own bundled libwebp), recorded by Scripts/webp_reference.py.
@Suite("WebP vs Pillow")
struct WebPReferenceTests {
    @Test("the reference table is present")
    func tableLoads() {
        #expect(WebPReference.all.count >= 5)
        #expect(!WebPReference.available(kind: "lossless").isEmpty)
    }

    @Test("lossless files decode to exactly Pillow's pixels", arguments: WebPReference.available(kind: "lossless"))
    func losslessExact(reference: WebPReference) throws {
        let image = try WebPCodec.decode(try reference.bytes(), limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.width == reference.width && image.pixels.height == reference.height)
        #expect(SHA256.hex(reference.comparable(image.pixels)) == reference.sha256)
    }

    /// Out-of-range colour-table indices are transparent black by the lossless spec; Pillow opens
    /// this file as RGB (no alpha flag), so the alpha it drops is checked here.
    @Test("a bad palette index decodes to transparent black", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func badPaletteIndex() throws {
        let data = try WebPFiles.corpus("lossless/bad_palette_index.webp")
        #expect(try WebPCodec.readInfo(data).hasAlpha == false)
        let image = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let p = image.pixels.pixel(x: 1, y: 0)
        #expect(p.r == 0 && p.g == 0 && p.b == 0 && p.a == 0)
        // The pixels are not all opaque, so the decoded image must say it has alpha.
        #expect(image.pixels.hasAlpha && image.info.hasAlpha)
    }

    @Test("lossy and animated files decode close to Pillow's pixels",
          arguments: WebPReference.all.filter { FileManager.default.fileExists(atPath: $0.pixelReferenceURL.path) && ($0.root == "testimages" || TestPaths.corpora != nil) })
    func lossyClose(reference: WebPReference) throws {
        // The stored reference is lossless: first make sure it holds exactly Pillow's pixels.
        let stored = try WebPCodec.decode(try TestPaths.bytes(reference.pixelReferenceURL), limits: DecodeLimits(), scale: .fullSize)
        try #require(SHA256.hex(stored.pixels.pixels) == reference.sha256, "stored reference does not match its digest")

        let image = try WebPCodec.decode(try reference.bytes(), limits: DecodeLimits(), scale: .fullSize)
        try #require(image.pixels.width == reference.width && image.pixels.height == reference.height)
        let difference = Pixels.meanAbsoluteDifference(reference.comparable(image.pixels), stored.pixels.pixels)
        #expect(difference < 1.5, "mean absolute difference \(difference)")
    }

    @Test("every lossy and animated file decodes at Pillow's size",
          arguments: WebPReference.available(kind: "lossy") + WebPReference.available(kind: "animated"))
    func lossySize(reference: WebPReference) throws {
        let image = try WebPCodec.decode(try reference.bytes(), limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.width == reference.width && image.pixels.height == reference.height)
    }
}
