import ImageCore
import TestSupport
import Testing
import WebPCodec

/// Files cut short must be refused, never decoded from partial data or padded out.
@Suite("WebP truncation")
struct WebPTruncationTests {
    static let testImages = ["lossless_rgba_32x24.webp", "lossy_rgb_48x32.webp", "lossy_alpha_40x30.webp", "exif_orientation_8.webp"]
    static let corpusFiles = [
        "lossy/vp80-00-comprehensive-010.webp", "lossy/test.webp", "lossless/lossless1.webp",
        "lossless/lossless_color_transform.webp", "alpha/lossy_alpha1.webp", "alpha/iw_gallery2_3_webp_ll.webp",
        "animated/imagers_anim.webp", "exif/pillow_hopper_orientation_6.webp",
    ]

    /// Several cut points: inside the RIFF header, inside the first chunk header, and through the data.
    static func cuts(_ count: Int) -> [Int] {
        Array(Set([1, 4, 8, 11, 12, 16, 19, 20, 24, 30, 40, count / 8, count / 4, count / 2, 3 * count / 4,
                   count - 16, count - 2, count - 1].filter { $0 > 0 && $0 < count })).sorted()
    }

    static func expectRefused(_ data: [UInt8], _ label: String) {
        let decodeError = #expect(throws: ImageError.self, "\(label) decoded") {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        }
        #expect(decodeError?.code == .truncatedImage, "\(label): \(String(describing: decodeError))")
        let scaledError = #expect(throws: ImageError.self, "\(label) decoded scaled") {
            _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.5))
        }
        #expect(scaledError?.code == .truncatedImage, "\(label): \(String(describing: scaledError))")
        let infoError = #expect(throws: ImageError.self, "\(label) read") { _ = try WebPCodec.readInfo(data) }
        #expect(infoError?.code == .truncatedImage, "\(label): \(String(describing: infoError))")
    }

    @Test("cut test images are truncated_image at every length", arguments: testImages)
    func cutTestImages(name: String) throws {
        let data = try WebPFiles.testImage(name)
        _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)  // whole, it decodes
        for cut in Self.cuts(data.count) {
            Self.expectRefused(Array(data.prefix(cut)), "\(name) cut to \(cut) of \(data.count)")
        }
    }

    @Test("cut corpus files are truncated_image at every length",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)), arguments: corpusFiles)
    func cutCorpus(file: String) throws {
        let data = try WebPFiles.corpus(file)
        _ = try WebPCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        for cut in Self.cuts(data.count) {
            Self.expectRefused(Array(data.prefix(cut)), "\(file) cut to \(cut) of \(data.count)")
        }
    }

    /// A file cut inside its image chunk (VP8/VP8L), then given RIFF and chunk sizes that match
    /// what is left: the container looks whole, so only libwebp's bitstream checks can notice.
    /// Refusal as truncated or corrupt is required, success is not allowed. (libwebp 1.2.4 accepts
    /// a cut of the last one or two bytes of some lossy streams, which the encoder's bool coder
    /// flush leaves unused; the pixels are then unchanged, so cuts start at three bytes.)
    @Test("cut image chunks with consistent container sizes are still refused", arguments: testImages)
    func cutAndPatched(name: String) throws {
        try Self.expectPatchedCutsRefused(try WebPFiles.testImage(name), name)
    }

    @Test("cut corpus image chunks with consistent container sizes are still refused",
          .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)), arguments: corpusFiles.filter { !$0.hasPrefix("animated/") })
    func cutAndPatchedCorpus(file: String) throws {
        try Self.expectPatchedCutsRefused(try WebPFiles.corpus(file), file)
    }

    static func expectPatchedCutsRefused(_ data: [UInt8], _ label: String) throws {
        // Find the image chunk.
        var offset = 12
        var imageChunk: (start: Int, end: Int)?
        while offset + 8 <= data.count {
            let fourcc = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            if fourcc == "VP8 " || fourcc == "VP8L" { imageChunk = (offset, offset + 8 + size); break }
            offset += 8 + size + (size & 1)
        }
        let chunk = try #require(imageChunk, "\(label) has no image chunk")
        let length = chunk.end - chunk.start - 8
        let keeps = Set([3, 8, 16, 64].map { length - $0 } + [length / 2, length * 3 / 4, length * 9 / 10]).filter { $0 > 10 }
        try #require(!keeps.isEmpty)
        for keep in keeps.sorted() {
            var cut = Array(data.prefix(chunk.start + 8 + keep))
            cut.replaceSubrange(chunk.start + 4..<chunk.start + 8, with: RIFFChunks.le32(keep))
            cut.replaceSubrange(4..<8, with: RIFFChunks.le32(cut.count - 8))
            let error = #expect(throws: ImageError.self, "\(label) with \(keep) of \(length) image bytes decoded") {
                _ = try WebPCodec.decode(cut, limits: DecodeLimits(), scale: .fullSize)
            }
            #expect(error.map { $0.code.isDataRefusal } == true, "\(label): \(String(describing: error))")
        }
    }
}
