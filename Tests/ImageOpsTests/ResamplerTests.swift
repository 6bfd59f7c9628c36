import Foundation
import ImageCore
import ImageOps
import ImageQuality
import Testing

@Suite struct ResamplerTests {
    static let photo = TestImages.photoLike(width: 320, height: 240)
    static let photoAlpha = TestImages.photoLike(width: 320, height: 240, hasAlpha: true, seed: 2)

    static func cover(_ image: PixelBuffer) -> SourceRegion {
        let side = Double(min(image.width, image.height))
        return SourceRegion(x: (Double(image.width) - side) / 2, y: (Double(image.height) - side) / 2, width: side, height: side)
    }

    // MARK: Sizes

    @Test(arguments: [(1, 1), (7, 7), (199, 199), (201, 201), (1, 7), (201, 1), (199, 201), (7, 199)])
    func outputHasExactlyTheRequestedSize(size: (Int, Int)) {
        for image in [Self.photo, Self.photoAlpha] {
            for region in [nil, Self.cover(image)] {
                let out = Resampler.resize(image, region: region, width: size.0, height: size.1)
                #expect(out.width == size.0 && out.height == size.1)
                #expect(out.pixels.count == size.0 * size.1 * 4)
                #expect(out.hasAlpha == image.hasAlpha)
                if !image.hasAlpha {
                    #expect(stride(from: 3, to: out.pixels.count, by: 4).allSatisfy { out.pixels[$0] == 255 })
                }
            }
        }
    }

    @Test func upscalingInterpolatesSmoothly() {
        // A horizontal ramp, 4 levels per pixel, upscaled 4x: interior output follows the ramp at
        // the mapped coordinate (Lanczos-3 reproduces a straight line up to its small ripple).
        let w = 40, h = 10
        var pixels = [UInt8](repeating: 255, count: w * h * 4)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 { pixels[4 * (y * w + x) + c] = UInt8(40 + 4 * x) } } }
        let ramp = PixelBuffer(width: w, height: h, hasAlpha: false, pixels: pixels)
        let out = Resampler.resize(ramp, width: 160, height: 40)
        #expect(out.width == 160 && out.height == 40)
        for x in 16..<144 {
            let sx = (Double(x) + 0.5) * Double(w) / 160 - 0.5
            let expected = 40 + 4 * sx
            let got = Double(out.pixel(x: x, y: 20).r)
            #expect(abs(got - expected) <= 1.0, "x \(x): \(got) vs \(expected)")
        }
        // Odd upscaled sizes too.
        let odd = Resampler.resize(Self.photo, width: 641, height: 487)
        #expect(odd.width == 641 && odd.height == 487)
    }

    @Test func extremeAspectRatios() {
        // A 1x4000 column and a 4000x1 row, each a ramp along its length.
        let n = 4000
        var column = [UInt8](repeating: 255, count: n * 4)
        for i in 0..<n { column[4 * i] = UInt8(i * 255 / (n - 1)); column[4 * i + 1] = 90; column[4 * i + 2] = 200 }
        let tall = PixelBuffer(width: 1, height: n, hasAlpha: false, pixels: column)
        let wide = PixelBuffer(width: n, height: 1, hasAlpha: false, pixels: column)

        // Contain-like: the whole image into 1x200 / 200x1 (and 2 x 200, stretched).
        let tallContain = Resampler.resize(tall, width: 1, height: 200)
        let wideContain = Resampler.resize(wide, width: 200, height: 1)
        let tallStretch = Resampler.resize(tall, width: 2, height: 200)
        #expect(tallContain.width == 1 && tallContain.height == 200)
        #expect(wideContain.width == 200 && wideContain.height == 1)
        #expect(tallStretch.width == 2 && tallStretch.height == 200)
        for i in 0..<200 {
            let expected = (Double(i) + 0.5) * 20 - 0.5
            let e = expected * 255 / Double(n - 1)
            #expect(abs(Double(tallContain.pixel(x: 0, y: i).r) - e) <= 1.5)
            #expect(abs(Double(wideContain.pixel(x: i, y: 0).r) - e) <= 1.5)
            #expect(tallStretch.pixel(x: 0, y: i) == tallStretch.pixel(x: 1, y: i))
            #expect(wideContain.pixel(x: i, y: 0).g == 90 && wideContain.pixel(x: i, y: 0).b == 200)
        }
        // Cover-like: the centre 1x1 square blown up to 200x200 is (nearly) one colour.
        let tallCover = Resampler.resize(tall, region: SourceRegion(x: 0, y: 1999.5, width: 1, height: 1), width: 200, height: 200)
        let wideCover = Resampler.resize(wide, region: SourceRegion(x: 1999.5, y: 0, width: 1, height: 1), width: 200, height: 200)
        for out in [tallCover, wideCover] {
            #expect(out.width == 200 && out.height == 200)
            let reds = stride(from: 0, to: out.pixels.count, by: 4).map { Int(out.pixels[$0]) }
            #expect(reds.max()! - reds.min()! <= 1)
            #expect(abs(reds[0] - 127) <= 1)
        }
    }

    // MARK: Values

    @Test func constantColourStaysExactlyThatColour() {
        let colours: [(UInt8, UInt8, UInt8, UInt8)] = [(0, 0, 0, 255), (255, 255, 255, 255), (200, 100, 50, 255), (13, 250, 77, 128), (255, 0, 128, 3)]
        for colour in colours {
            let alpha = colour.3 != 255
            let image = TestImages.solid(width: 301, height: 203, colour, hasAlpha: alpha)
            let cases: [(SourceRegion?, Int, Int)] = [
                (nil, 37, 29), (nil, 600, 401), (SourceRegion(x: 10.3, y: 5.7, width: 150.2, height: 99.9), 53, 31),
                (nil, 11, 7), // 27x reduction: box pre-reduction path
                (SourceRegion(x: -20, y: -20, width: 350, height: 250), 64, 48), // region past the edges
            ]
            for (region, w, h) in cases {
                for (mode, arithmetic) in [(Resampler.Prereduction.automatic, Resampler.Arithmetic.automatic), (.none, .automatic), (.none, .float)] {
                    let out = Resampler.resize(image, region: region, width: w, height: h, prereduction: mode, arithmetic: arithmetic)
                    let expected: [UInt8] = [colour.0, colour.1, colour.2, colour.3]
                    let bad = (0..<(w * h)).first { i in (0..<4).contains { out.pixels[4 * i + $0] != expected[$0] } }
                    #expect(bad == nil, "colour \(colour) \(w)x\(h) \(mode) \(arithmetic): pixel \(bad ?? -1)")
                }
            }
        }
    }

    @Test func transparentSurroundLeavesNoDarkFringe() {
        // Transparent black everywhere (the worst colour to leak), an opaque square in the middle.
        let size = 400, colour: (UInt8, UInt8, UInt8) = (30, 200, 90)
        var pixels = [UInt8](repeating: 0, count: size * size * 4)
        for y in 130..<270 { for x in 130..<270 {
            let i = 4 * (y * size + x)
            pixels[i] = colour.0; pixels[i + 1] = colour.1; pixels[i + 2] = colour.2; pixels[i + 3] = 255
        } }
        let image = PixelBuffer(width: size, height: size, hasAlpha: true, pixels: pixels)
        for (w, region) in [(50, nil), (37, nil), (31, nil), (23, SourceRegion(x: 100.5, y: 90.25, width: 210, height: 210)), (13, nil)] as [(Int, SourceRegion?)] {
            let out = Resampler.resize(image, region: region, width: w, height: w)
            var partial = 0
            for i in 0..<(w * w) where out.pixels[4 * i + 3] > 0 {
                if out.pixels[4 * i + 3] < 255 { partial += 1 }
                let got = (Int(out.pixels[4 * i]), Int(out.pixels[4 * i + 1]), Int(out.pixels[4 * i + 2]))
                #expect(abs(got.0 - Int(colour.0)) <= 2 && abs(got.1 - Int(colour.1)) <= 2 && abs(got.2 - Int(colour.2)) <= 2,
                        "\(w)x\(w) pixel \(i % w),\(i / w) alpha \(out.pixels[4 * i + 3]): \(got)")
            }
            // The square's edges do land between pixels, so the check above saw soft edges.
            #expect(partial > 0)
        }
    }

    @Test func fineCheckerboardDownscaledIsUniformGrey() {
        // 1-pixel checkerboard and 2-pixel-period stripes: all their energy is above the output's
        // Nyquist frequency, so an 8x reduction must average them away (nearest neighbour would
        // return pure black or white). The outer 3 output pixels are left out: there the kernel
        // reaches past the image and the repeated edge pixel (black or white) weighs in.
        let size = 800
        var checker = [UInt8](repeating: 255, count: size * size * 4)
        var stripes = checker
        for y in 0..<size { for x in 0..<size {
            let v: UInt8 = (x + y) % 2 == 0 ? 0 : 255
            let s: UInt8 = x % 2 == 0 ? 0 : 255
            for c in 0..<3 { checker[4 * (y * size + x) + c] = v; stripes[4 * (y * size + x) + c] = s }
        } }
        for pixels in [checker, stripes] {
            let image = PixelBuffer(width: size, height: size, hasAlpha: false, pixels: pixels)
            for (mode, arithmetic) in [(Resampler.Prereduction.automatic, Resampler.Arithmetic.automatic), (.none, .automatic), (.none, .float)] {
                let out = Resampler.resize(image, width: 100, height: 100, prereduction: mode, arithmetic: arithmetic)
                var worst = 0
                for y in 3..<97 { for x in 3..<97 { worst = max(worst, abs(Int(out.pixel(x: x, y: y).r) - 128)) } }
                #expect(worst <= 3, "\(mode): \(worst) levels from grey")
            }
        }
        // A horizontal sine of period 2.5 px (above the output Nyquist) goes flat too.
        var sine = [UInt8](repeating: 255, count: size * 16 * 4)
        for y in 0..<16 { for x in 0..<size {
            let v = UInt8((127.5 + 127.5 * sin(2 * Double.pi * Double(x) / 2.5)).rounded())
            for c in 0..<3 { sine[4 * (y * size + x) + c] = v }
        } }
        let out = Resampler.resize(PixelBuffer(width: size, height: 16, hasAlpha: false, pixels: sine), width: 100, height: 2, prereduction: .none)
        let reds = (3..<97).map { Int(out.pixel(x: $0, y: 0).r) }
        #expect(reds.max()! - reds.min()! <= 4)
    }

    @Test func matchesStraightforwardReferenceImplementation() {
        // Small images so the slow reference is quick; fractional regions, down and up, with alpha.
        let opaque = TestImages.photoLike(width: 61, height: 47, seed: 5)
        let alpha = TestImages.photoLike(width: 61, height: 47, hasAlpha: true, seed: 6)
        let cases: [(SourceRegion?, Int, Int)] = [
            (nil, 17, 13), (nil, 61, 47), (nil, 150, 101), (nil, 1, 1), (nil, 5, 40),
            (SourceRegion(x: 7.25, y: 3.5, width: 40.5, height: 38.75), 19, 23),
            (SourceRegion(x: 0, y: 0, width: 10, height: 10), 33, 33),
            (SourceRegion(x: 30.5, y: 20, width: 30.5, height: 27), 6, 9),
        ]
        for image in [opaque, alpha] {
            for (region, w, h) in cases {
                let reference = ReferenceResampler.resize(image, region: region, width: w, height: h)
                for arithmetic in [Resampler.Arithmetic.automatic, .baselineFixedPoint, .float] {
                    let fast = Resampler.resize(image, region: region, width: w, height: h, prereduction: .none, arithmetic: arithmetic)
                    let diff = ReferenceResampler.maxDifference(fast, reference)
                    #expect(diff <= 1, "\(image.hasAlpha ? "alpha" : "opaque") \(arithmetic) \(String(describing: region)) -> \(w)x\(h): off by \(diff)")
                }
            }
        }
    }

    /// The AVX2 row kernel adds the same integers in another order, and the AVX2 vertical kernel the
    /// same floats in the same order two pixels a register: every thumbnail is the same bytes as the
    /// SSE2 passes make, whatever the tap count (groups of eight, and a last group of four) and width
    /// (whole groups of eight pixels, and the rest).
    @Test func theAVX2PassMakesTheSameBytesAsSSE2() {
        let photo = TestImages.photoLike(width: 1203, height: 901, seed: 5)
        let cases: [(SourceRegion?, Int, Int)] = [
            (nil, 300, 225), (nil, 160, 120), (nil, 531, 397), (nil, 1, 1), (nil, 1203, 901), (nil, 2000, 40),
            (SourceRegion(x: 301.5, y: 0, width: 675, height: 901), 300, 400),
            (SourceRegion(x: 0.25, y: 7.5, width: 1202.5, height: 800), 77, 51),
        ]
        for (region, w, h) in cases {
            let wide = Resampler.resize(photo, region: region, width: w, height: h, prereduction: .none, arithmetic: .automatic)
            let baseline = Resampler.resize(photo, region: region, width: w, height: h, prereduction: .none, arithmetic: .baselineFixedPoint)
            let differing = zip(wide.pixels, baseline.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "\(String(describing: region)) -> \(w)x\(h): \(differing) bytes differ")
        }
    }

    @Test func followsThePixelCentreConvention() {
        // An impulse at column 40 of a mid-grey row. Downscaled 3x from a fractional origin, each
        // output is 128 + 120 * (the normalised Lanczos weight the impulse gets), worked out here from
        // dst i -> src x = region.x + (i + 0.5) * 3 - 0.5 with the kernel stretched 3x.
        let w = 120
        var pixels = [UInt8](repeating: 128, count: w * 4)
        for c in 0..<3 { pixels[4 * 40 + c] = 248 }
        for i in 0..<w { pixels[4 * i + 3] = 255 }
        let row = PixelBuffer(width: w, height: 1, hasAlpha: false, pixels: pixels)
        let origin = 1.75
        let out = Resampler.resize(row, region: SourceRegion(x: origin, y: 0, width: 114, height: 1), width: 38, height: 1)
        for i in 0..<38 {
            let centre = origin + (Double(i) + 0.5) * 3 - 0.5
            var sum = 0.0
            for j in Int((centre - 9).rounded(.down))...Int((centre + 9).rounded(.up)) {
                sum += ReferenceResampler.lanczos3((Double(j) - centre) / 3)
            }
            let weight = ReferenceResampler.lanczos3((40 - centre) / 3) / sum
            let expected = 128 + 120 * weight
            #expect(abs(Double(out.pixel(x: i, y: 0).r) - expected) <= 0.75, "output \(i)")
        }
    }

    @Test func regionEqualsCropThenResize() {
        let image = TestImages.photoLike(width: 500, height: 400, seed: 7)
        let imageAlpha = TestImages.photoLike(width: 500, height: 400, hasAlpha: true, seed: 8)
        for source in [image, imageAlpha] {
            for (x, y, side, out) in [(37, 21, 300, 100), (0, 0, 250, 83), (200, 100, 300, 45), (120, 40, 60, 150)] {
                let crop = Self.crop(source, x: x, y: y, width: side, height: side)
                let viaCrop = Resampler.resize(crop, width: out, height: out)
                let viaRegion = Resampler.resize(source, region: SourceRegion(x: Double(x), y: Double(y), width: Double(side), height: Double(side)),
                                                 width: out, height: out)
                // Within 3 output pixels of a crop edge that is not an image edge, the region
                // resample rightly reads the real neighbours where the crop repeats its edge.
                let leftFree = x == 0, topFree = y == 0
                let rightFree = x + side == source.width, bottomFree = y + side == source.height
                let border = max(3, Int((3.0 * Double(out) / Double(side)).rounded(.up)) + 1)
                var worst = 0
                for oy in 0..<out {
                    if !topFree && oy < border { continue }
                    if !bottomFree && oy >= out - border { continue }
                    for ox in 0..<out {
                        if !leftFree && ox < border { continue }
                        if !rightFree && ox >= out - border { continue }
                        let a = viaCrop.pixel(x: ox, y: oy), b = viaRegion.pixel(x: ox, y: oy)
                        let d = [abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a))]
                        worst = max(worst, a.a == 0 && b.a == 0 ? 0 : d.max()!)
                    }
                }
                #expect(worst <= 1, "crop \(x),\(y) \(side) -> \(out): off by \(worst)")
            }
        }
    }

    static func crop(_ image: PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for row in y..<(y + height) {
            let start = 4 * (row * image.width + x)
            pixels += image.pixels[start..<(start + 4 * width)]
        }
        return PixelBuffer(width: width, height: height, hasAlpha: image.hasAlpha, pixels: pixels)
    }

    // MARK: Box pre-reduction

    @Test func boxPrereductionStaysCloseToPureLanczos() {
        let big = TestImages.photoLike(width: 1300, height: 1000, seed: 9)
        let bigAlpha = TestImages.photoLike(width: 1300, height: 1000, hasAlpha: true, seed: 10)
        for image in [big, bigAlpha] {
            let region = Self.cover(image)
            for size in [100, 64] {
                let pure = Resampler.resize(image, region: region, width: size, height: size, prereduction: .none)
                let fast = Resampler.resize(image, region: region, width: size, height: size, prereduction: .automatic)
                #expect(pure != fast)  // the box path really ran (10x and 15x reductions)
                let ssim = SSIM.compare(pure, fast, channels: .rgb)
                #expect(ssim >= 0.995, "\(size): SSIM \(ssim)")
            }
        }
    }

    @Test func prereductionChoosesIntegerFactorsLeavingThreeForLanczos() {
        #expect(Resampler.Prereduction.automatic.boxFactor(5.9) == 1)
        #expect(Resampler.Prereduction.automatic.boxFactor(6) == 2)
        #expect(Resampler.Prereduction.automatic.boxFactor(15) == 5)
        #expect(Resampler.Prereduction.automatic.boxFactor(20) == 6)
        #expect(Resampler.Prereduction.none.boxFactor(100) == 1)
        #expect(Resampler.Prereduction.box(lanczosFactor: 2).boxFactor(9) == 4)
        #expect(Resampler.Prereduction.automatic.boxFactor(10_000) == 255)
    }

    // MARK: Orientation folded into the resize

    @Test(arguments: Orientation.allCases)
    func orientedResizeMatchesOrientThenResize(orientation: Orientation) {
        for source in [TestImages.photoLike(width: 90, height: 60, seed: 11), TestImages.photoLike(width: 90, height: 60, hasAlpha: true, seed: 12)] {
            let upright = source.oriented(orientation)
            let region = SourceRegion(x: 3.5, y: 1.25, width: Double(upright.width) * 0.7, height: Double(upright.height) * 0.8)
            for (w, h) in [(23, 17), (40, 51)] {
                let expected = Resampler.resize(upright, region: region, width: w, height: h)
                let got = Resampler.resize(source, orientation: orientation, region: region, width: w, height: h)
                #expect(got.width == w && got.height == h)
                let worst = zip(expected.pixels, got.pixels).map { abs(Int($0) - Int($1)) }.max()!
                #expect(worst <= 1, "\(orientation) \(w)x\(h): off by \(worst)")
            }
        }
    }
}
