import ChildProcess
import Foundation
import ImageCore
import ImageOps
import ImageQuality
import Testing

@Suite struct SSIMTests {
    // MARK: Image pairs, regenerated identically on every run

    static func noisy(_ image: PixelBuffer, amplitude: Int, seed: UInt64) -> PixelBuffer {
        var rng = TestImages.Random(seed: seed)
        var pixels = image.pixels
        for i in 0..<pixels.count where i % 4 != 3 {
            pixels[i] = UInt8(clamping: Int(pixels[i]) + rng.next(below: 2 * amplitude + 1) - amplitude)
        }
        return PixelBuffer(width: image.width, height: image.height, hasAlpha: image.hasAlpha, pixels: pixels)
    }

    /// Moved right by `dx` pixels, the left edge repeated.
    static func shifted(_ image: PixelBuffer, dx: Int) -> PixelBuffer {
        var pixels = image.pixels
        for y in 0..<image.height { for x in 0..<image.width {
            let sx = max(0, x - dx)
            for c in 0..<4 { pixels[4 * (y * image.width + x) + c] = image.pixels[4 * (y * image.width + sx) + c] }
        } }
        return PixelBuffer(width: image.width, height: image.height, hasAlpha: image.hasAlpha, pixels: pixels)
    }

    /// Alpha scaled by 3/4 and the colour nudged: compared over white, both matter.
    static func faded(_ image: PixelBuffer, seed: UInt64) -> PixelBuffer {
        var out = noisy(image, amplitude: 10, seed: seed)
        for i in stride(from: 3, to: out.pixels.count, by: 4) { out.pixels[i] = UInt8(Int(out.pixels[i]) * 3 / 4) }
        return out
    }

    /// 3x3 box blur (edges clamped), integer mean rounded down.
    static func blurred(_ image: PixelBuffer) -> PixelBuffer {
        var pixels = image.pixels
        let w = image.width, h = image.height
        for y in 0..<h { for x in 0..<w { for c in 0..<3 {
            var sum = 0
            for dy in -1...1 { for dx in -1...1 {
                let sx = min(max(x + dx, 0), w - 1), sy = min(max(y + dy, 0), h - 1)
                sum += Int(image.pixels[4 * (sy * w + sx) + c])
            } }
            pixels[4 * (y * w + x) + c] = UInt8(sum / 9)
        } } }
        return PixelBuffer(width: w, height: h, hasAlpha: image.hasAlpha, pixels: pixels)
    }

    static let base = TestImages.photoLike(width: 97, height: 83, seed: 21)
    static let baseAlpha = TestImages.photoLike(width: 64, height: 57, hasAlpha: true, seed: 23)

    /// The pairs cross-checked against scikit-image, with the values scikit-image 0.26.0 gave for them
    /// (luma, then the mean over R, G, B); `skimageAgrees` recomputes them.
    static let pairs: [(name: String, a: PixelBuffer, b: PixelBuffer, luma: Double, rgb: Double)] = [
        ("noise", base, noisy(base, amplitude: 24, seed: 22), 0.7996163778, 0.6735852652),
        ("shift", base, shifted(base, dx: 2), 0.1793019586, 0.2299538982),
        ("alpha", baseAlpha, faded(baseAlpha, seed: 24), 0.9437189682, 0.9210254825),
        ("blurred", TestImages.photoLike(width: 120, height: 110, seed: 25),
         blurred(TestImages.photoLike(width: 120, height: 110, seed: 25)), 0.7361430568, 0.7500496397),
    ]

    // MARK: Properties

    @Test func identicalImagesScoreOne() {
        for image in [Self.base, Self.baseAlpha, TestImages.solid(width: 20, height: 20, (9, 9, 9, 255), hasAlpha: false)] {
            #expect(abs(SSIM.compare(image, image) - 1) < 1e-12)
            #expect(abs(SSIM.compare(image, image, channels: .rgb) - 1) < 1e-12)
        }
    }

    @Test func noiseLowersTheScoreMoreTheStrongerItIs() {
        let scores = [2, 8, 24, 64].map { SSIM.compare(Self.base, Self.noisy(Self.base, amplitude: $0, seed: 3)) }
        #expect(scores[0] < 1)
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 > $1 }, "\(scores)")
        #expect(scores[3] < 0.6)
    }

    @Test func aShiftLowersTheScore() {
        let one = SSIM.compare(Self.base, Self.shifted(Self.base, dx: 1))
        let three = SSIM.compare(Self.base, Self.shifted(Self.base, dx: 3))
        #expect(one < 0.95)
        #expect(three < one)
    }

    @Test func alphaIsComparedOverWhite() {
        // Fully transparent pixels compare as white whatever colour they hide.
        let a = TestImages.solid(width: 16, height: 16, (0, 0, 0, 0), hasAlpha: true)
        let b = TestImages.solid(width: 16, height: 16, (255, 0, 0, 0), hasAlpha: true)
        let white = TestImages.solid(width: 16, height: 16, (255, 255, 255, 255), hasAlpha: false)
        #expect(SSIM.compare(a, b) == 1)
        #expect(SSIM.compare(a, white) == 1)
        #expect(SSIM.luma(a) == [Double](repeating: 255, count: 256))
    }

    @Test func perChannelComparisonSeesAChangeLumaBarelyNotices() {
        // Noise in blue only: luma weighs blue 0.114, so its SSIM stays higher than blue's own.
        var pixels = Self.base.pixels
        var rng = TestImages.Random(seed: 5)
        for i in stride(from: 2, to: pixels.count, by: 4) { pixels[i] = UInt8(clamping: Int(pixels[i]) + rng.next(below: 61) - 30) }
        let blueNoise = PixelBuffer(width: Self.base.width, height: Self.base.height, hasAlpha: false, pixels: pixels)
        let channels = SSIM.compareRGB(Self.base, blueNoise)
        #expect(channels.r == 1 && channels.g == 1)
        #expect(channels.b < 0.9)
        let luma = SSIM.compare(Self.base, blueNoise)
        #expect(luma > channels.b)
        #expect(abs(SSIM.compare(Self.base, blueNoise, channels: .rgb) - (2 + channels.b) / 3) < 1e-12)
    }

    @Test func smallImagesUseASmallerWindow() {
        let a = TestImages.photoLike(width: 8, height: 30, seed: 1)
        #expect(abs(SSIM.compare(a, a) - 1) < 1e-12)
        #expect(SSIM.compare(a, Self.noisy(a, amplitude: 30, seed: 2)) < 0.99)
        let dot = TestImages.solid(width: 1, height: 1, (10, 10, 10, 255), hasAlpha: false)
        #expect(SSIM.compare(dot, dot) == 1)
    }

    // MARK: Cross-check against scikit-image

    @Test(arguments: 0..<4)
    func matchesRecordedScikitImageValues(index: Int) {
        let pair = Self.pairs[index]
        let luma = SSIM.compare(pair.a, pair.b)
        let rgb = SSIM.compare(pair.a, pair.b, channels: .rgb)
        #expect(abs(luma - pair.luma) < 1e-6, "\(pair.name): luma \(luma) vs scikit-image \(pair.luma)")
        #expect(abs(rgb - pair.rgb) < 1e-6, "\(pair.name): rgb \(rgb) vs scikit-image \(pair.rgb)")
    }

    /// The reference numbers above came from this: with THUMBD_SKIMAGE=1 (and python3 with
    /// scikit-image, numpy), the pairs are written as PAM files to a temporary folder and scored by
    /// `skimage.metrics.structural_similarity(x, y, gaussian_weights=True, sigma=1.5,
    /// use_sample_covariance=False, data_range=255)` on luma (Rec.601, composited over white) and
    /// on each of R, G, B; the test prints the values and checks ours against them live.
    ///
    ///     THUMBD_SKIMAGE=1 swift test --scratch-path .build-ops --filter skimageAgrees
    @Test(.enabled(if: ProcessInfo.processInfo.environment["THUMBD_SKIMAGE"] == "1", "set THUMBD_SKIMAGE=1 to run scikit-image"))
    func skimageAgrees() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("thumbd-ssim-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = ["-c", Self.skimageScript]
        for pair in Self.pairs {
            let a = folder.appendingPathComponent("\(pair.name)-a.pam"), b = folder.appendingPathComponent("\(pair.name)-b.pam")
            try TestImages.writePAM(pair.a, to: a)
            try TestImages.writePAM(pair.b, to: b)
            arguments += [a.path, b.path]
        }
        let result = try ChildProcess.run("/usr/bin/env", ["python3"] + arguments, timeoutSeconds: 600)
        let output = result.stdoutText
        #expect(result.status == 0, "\(result.stderrText)")
        let lines = output.split(separator: "\n")
        #expect(lines.count == Self.pairs.count)
        for (pair, line) in zip(Self.pairs, lines) {
            let values = line.split(separator: " ").compactMap { Double($0) }
            guard values.count == 2 else { Issue.record("bad line \(line)"); continue }
            let luma = SSIM.compare(pair.a, pair.b), rgb = SSIM.compare(pair.a, pair.b, channels: .rgb)
            print(String(format: "%@: scikit-image luma %.10f rgb %.10f | ours luma %.10f rgb %.10f",
                         pair.name, values[0], values[1], luma, rgb))
            #expect(abs(luma - values[0]) < 1e-6)
            #expect(abs(rgb - values[1]) < 1e-6)
        }
    }

    static let skimageScript = """
    import sys, numpy as np
    from skimage.metrics import structural_similarity
    def read(path):
        data = open(path, "rb").read()
        end = data.index(b"ENDHDR\\n") + 7
        fields = dict(l.split(" ", 1) for l in data[:end].decode().splitlines()[1:-1])
        w, h, d = int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"])
        px = np.frombuffer(data[end:end + w * h * d], np.uint8).reshape(h, w, d).astype(np.float64)
        a = px[..., 3:4] / 255.0
        return px[..., :3] * a + 255.0 * (1.0 - a)
    def ssim(x, y):
        return structural_similarity(x, y, gaussian_weights=True, sigma=1.5,
                                     use_sample_covariance=False, data_range=255)
    args = sys.argv[1:]
    for i in range(0, len(args), 2):
        x, y = read(args[i]), read(args[i + 1])
        luma = lambda p: 0.299 * p[..., 0] + 0.587 * p[..., 1] + 0.114 * p[..., 2]
        rgb = np.mean([ssim(x[..., c], y[..., c]) for c in range(3)])
        print("%.10f %.10f" % (ssim(luma(x), luma(y)), rgb))
    """
}
