import ImageCore
import ImagePlaceholder
import Testing

@Suite("ThumbHash previews")
struct DecodeTests {
    private func ratio(_ w: Int, _ h: Int) -> Double { Double(w) / Double(h) }

    @Test("the preview keeps the source's shape as closely as the format can", arguments: TestImage.all)
    func previewShape(_ sample: TestImage) throws {
        let hash = try #require(ThumbHash.encode(sample.image))
        let preview = try #require(ThumbHash.decode(hash))
        let (w, h) = (sample.image.width, sample.image.height)

        #expect(max(preview.width, preview.height) == 32)
        #expect((w > h) == (preview.width > preview.height))
        #expect((w == h) == (preview.width == preview.height))

        // The shorter side is stored in steps of 1/limit of the longer, then drawn on a 32-pixel grid.
        let limit = sample.hasTranslucency ? 5.0 : 7.0
        let sourceShort = Double(min(w, h)) / Double(max(w, h))
        let previewShort = Double(min(preview.width, preview.height)) / 32
        let carriedShort = min(ThumbHash.aspectRatio(hash) ?? 0, 1 / (ThumbHash.aspectRatio(hash) ?? 1))
        let allowed = sourceShort < 0.5 / limit ? 1 / limit : 0.5 / limit
        #expect(abs(carriedShort - sourceShort) <= allowed + 1e-12, "carried \(carriedShort), source \(sourceShort)")
        #expect(abs(previewShort - carriedShort) <= 0.5 / 32 + 1e-12)

        if sample.shapeFitsFormat {
            let error = abs(ratio(preview.width, preview.height) / ratio(w, h) - 1)
            #expect(error < 0.05, "preview \(preview.width)x\(preview.height) is \(error * 100)% off \(w)x\(h)")
        }
    }

    @Test("the average colour is the source's alpha-weighted mean", arguments: TestImage.all)
    func averageColour(_ sample: TestImage) throws {
        let hash = try #require(ThumbHash.encode(sample.image))
        let average = try #require(ThumbHash.averageColor(hash))
        let mean = sample.meanColour

        // Quantization: luma in 63 steps, each chroma axis in 63 steps over -1...1, which adds
        // up to at most 5.4 levels in any channel; alpha is stored in 15 steps (8.5 levels).
        if mean.a > 0 {
            #expect(abs(Double(average.r) - mean.r) <= 6, "r \(average.r) vs \(mean.r)")
            #expect(abs(Double(average.g) - mean.g) <= 6, "g \(average.g) vs \(mean.g)")
            #expect(abs(Double(average.b) - mean.b) <= 6, "b \(average.b) vs \(mean.b)")
        }
        if sample.hasTranslucency {
            #expect(abs(Double(average.a) - mean.a) <= 8.5, "a \(average.a) vs \(mean.a)")
        } else {
            #expect(average.a == 255)
        }
    }

    /// A side shorter than about half the cosine terms along it aliases: on a single pixel the
    /// frequency-2 term equals the pixel itself, negated, so the hash stores large varying terms
    /// and the preview swings and clamps far from the average. The reference encoders do the same
    /// (the cross-check is byte-equal for the 1x1 images); only the average colour stays right.
    static let unaliased = TestImage.all.filter { min($0.image.width, $0.image.height) >= 4 }

    @Test("the preview's mean colour is the hash's average colour", arguments: unaliased)
    func previewMean(_ sample: TestImage) throws {
        let hash = try #require(ThumbHash.encode(sample.image))
        let preview = try #require(ThumbHash.decode(hash))
        let average = try #require(ThumbHash.averageColor(hash))
        var sums = [0.0, 0.0, 0.0, 0.0]
        for (i, value) in preview.pixels.enumerated() { sums[i % 4] += Double(value) }
        let n = Double(preview.width * preview.height)
        let means = sums.map { $0 / n }
        // The cosine terms sum to zero over the preview's grid, so only clamping to 0...255 can
        // move the mean; the generous bound allows for the checkerboard's strong terms.
        let expected = [average.r, average.g, average.b, average.a].map(Double.init)
        for c in 0..<4 {
            #expect(abs(means[c] - expected[c]) <= 12, "channel \(c): \(means[c]) vs \(expected[c])")
        }
        #expect(preview.hasAlpha == sample.hasTranslucency)
    }

    @Test("a flat image decodes to a flat preview of its colour")
    func flatImage() throws {
        let image = PixelBuffer(width: 40, height: 40, hasAlpha: false,
                                pixels: [UInt8]((0..<1600).flatMap { _ in [UInt8(90), 180, 30, 255] }))
        let hash = try #require(ThumbHash.encode(image))
        let preview = try #require(ThumbHash.decode(hash))
        for i in stride(from: 0, to: preview.pixels.count, by: 4) {
            #expect(abs(Int(preview.pixels[i]) - 90) <= 6 && abs(Int(preview.pixels[i + 1]) - 180) <= 6
                    && abs(Int(preview.pixels[i + 2]) - 30) <= 6 && preview.pixels[i + 3] == 255)
        }
    }

    @Test("the preview shows where the source is light and dark")
    func previewFollowsSource() throws {
        // Left half white, right half black: the preview's left must be clearly lighter.
        let image = PixelBuffer(width: 60, height: 40, hasAlpha: false, pixels: [UInt8]((0..<2400).flatMap { i -> [UInt8] in
            let v: UInt8 = i % 60 < 30 ? 255 : 0
            return [v, v, v, 255]
        }))
        let hash = try #require(ThumbHash.encode(image))
        let preview = try #require(ThumbHash.decode(hash))
        let y = preview.height / 2
        #expect(Int(preview.pixel(x: 2, y: y).r) - Int(preview.pixel(x: preview.width - 3, y: y).r) > 150)
    }
}

@Suite("ThumbHash previews at a known ratio")
struct KnownRatioPreviewTests {
    @Test(arguments: [1.5, 4.0 / 3, 16.0 / 9, 0.75, 2.0 / 3, 1.0])
    func previewTakesTheGivenShape(_ ratio: Double) throws {
        let width = ratio >= 1 ? 100 : Int((100 * ratio).rounded())
        let height = ratio >= 1 ? Int((100 / ratio).rounded()) : 100
        var image = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]) = (UInt8(x * 2), UInt8(y * 2), 128)
            }
        }
        let hash = try #require(ThumbHash.encode(image))
        let preview = try #require(ThumbHash.decode(hash, aspectRatio: ratio))
        let drawn = Double(preview.width) / Double(preview.height)
        #expect(abs(drawn - ratio) / ratio < 0.05, "drawn \(preview.width)x\(preview.height) for \(ratio)")
        // The same colours as the hash's own preview, only sampled on another grid.
        let plain = try #require(ThumbHash.decode(hash))
        #expect(abs(Int(preview.pixels[0]) - Int(plain.pixels[0])) <= 8)
        #expect(ThumbHash.decode(hash, aspectRatio: .nan) == nil && ThumbHash.decode(hash, aspectRatio: -1) == nil)
    }
}
