import ImageCore
import TestSupport
import Testing
import WebPCodec

/// The third-party WebP corpus: what libwebp's own test data and other decoders' fixtures say.
@Suite("WebP corpus", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
struct WebPCorpusTests {
    @Test("corpus files marked decode decode at the MANIFEST size", arguments: WebPFiles.manifestFiles(expected: "decode"))
    func decodes(file: String) throws {
        let row = try WebPFiles.manifestRow(file)
        let width = try #require(Int(row["width"] ?? "")), height = try #require(Int(row["height"] ?? ""))
        let detail = row["detail"] ?? ""
        let data = try WebPFiles.corpus(file)

        let info = try WebPCodec.readInfo(data)
        #expect(info.format == .webp)
        #expect(info.width == width && info.height == height)
        #expect(info.isAnimated == detail.contains("animated"))

        let image = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(image.pixels.width == width && image.pixels.height == height)
        #expect(image.pixels.pixels.count == width * height * 4)
        #expect(image.info.width == width && image.info.height == height)
        if detail.contains("alpha") {
            #expect(image.pixels.hasAlpha, "MANIFEST says \(detail)")
        }
        if !image.pixels.hasAlpha {
            // hasAlpha false is a promise that every pixel is opaque.
            #expect(Pixels.allOpaque(image.pixels.pixels))
        }
    }

    @Test("corpus files marked reject are refused with an ImageError", arguments: WebPFiles.manifestFiles(expected: "reject"))
    func rejects(file: String) throws {
        let data = try WebPFiles.corpus(file)
        let decodeError = #expect(throws: ImageError.self) {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }
        #expect(decodeError.map { $0.code.isDataRefusal } == true, "\(String(describing: decodeError))")
        #expect(throws: ImageError.self) { _ = try WebPCodec.readInfo(data) }
    }

    @Test("the invalid folder is not empty", .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)))
    func invalidFolderListed() {
        #expect(WebPFiles.manifestFiles(expected: "reject").count >= 6)
        #expect(WebPFiles.manifestFiles(expected: "decode").count >= 50)
    }

    @Test("every WebP among the broken files is refused without a crash", arguments: WebPFiles.brokenWebPs())
    func brokenFiles(file: String) throws {
        let url = try #require(TestPaths.corpus("broken/\(file)"))
        let data = try TestPaths.bytes(url)
        let expected = (try TestPaths.manifest("broken")).first { $0["file"] == file }?["expected"]
        do {
            let image = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
            #expect(expected != "reject", "decoded \(image.pixels.width)x\(image.pixels.height), MANIFEST says reject")
        } catch {
            #expect(expected != "decode", "refused (\(error)), MANIFEST says decode")
        }
        _ = try? WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.3))
        _ = try? WebPCodec.readInfo(data)
    }

    @Test("the broken corpus holds WebP files to try")
    func brokenListed() {
        #expect(WebPFiles.brokenWebPs().count >= 6)
    }
}
