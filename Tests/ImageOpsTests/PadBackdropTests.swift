import Foundation
import ImageCore
@testable import ImageOps
import Testing

/// The pad backgrounds' pixel work: the edge colour `auto` reads and the blurred canvas of `blur`.
struct PadBackdropTests {
    /// Fills the rectangle at (x, y) of `image` with one colour.
    static func fill(_ image: inout PixelBuffer, x: Int, y: Int, width: Int, height: Int, _ rgba: (UInt8, UInt8, UInt8, UInt8)) {
        for row in y..<(y + height) {
            for column in x..<(x + width) {
                let i = (row * image.width + column) * 4
                (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = rgba
            }
        }
    }

    // MARK: EdgeColor

    /// Something covering less than half of the ring (a product touching the edge) does not move
    /// the median: it stays the background's colour, where the mean would not.
    @Test func edgeColourIsTheMajorityNotTheMean() {
        var photo = TestImages.solid(width: 200, height: 100, (230, 232, 228, 255), hasAlpha: false)
        Self.fill(&photo, x: 0, y: 90, width: 120, height: 10, (20, 20, 20, 255))
        let colour = EdgeColor.median(of: photo, canvasWidth: 200, canvasHeight: 200)
        #expect(colour == (230, 232, 228))
    }

    /// Only the sides that meet the bands count: a photo with black left and right edges but grey
    /// top and bottom ones gives grey bands above and below it, and black bands beside it.
    @Test func edgeColourReadsTheSidesThatMeetTheBands() {
        var photo = TestImages.solid(width: 100, height: 100, (128, 128, 128, 255), hasAlpha: false)
        Self.fill(&photo, x: 0, y: 0, width: 4, height: 100, (0, 0, 0, 255))
        Self.fill(&photo, x: 96, y: 0, width: 4, height: 100, (0, 0, 0, 255))
        #expect(EdgeColor.median(of: photo, canvasWidth: 100, canvasHeight: 180) == (128, 128, 128))
        #expect(EdgeColor.median(of: photo, canvasWidth: 180, canvasHeight: 100) == (0, 0, 0))
    }

    /// Transparent pixels are not what shows: they are skipped, and a ring with nothing opaque
    /// enough gives white.
    @Test func edgeColourSkipsTransparentPixels() {
        var photo = TestImages.solid(width: 100, height: 60, (0, 0, 0, 0), hasAlpha: true)
        #expect(EdgeColor.median(of: photo, canvasWidth: 100, canvasHeight: 100) == EdgeColor.fallback)
        Self.fill(&photo, x: 0, y: 0, width: 30, height: 60, (200, 100, 50, 255))
        #expect(EdgeColor.median(of: photo, canvasWidth: 100, canvasHeight: 100) == (200, 100, 50))
    }

    /// Photos of one or two pixels have a ring too.
    @Test func edgeColourOfTinyPhotos() {
        let dot = TestImages.solid(width: 1, height: 1, (9, 8, 7, 255), hasAlpha: false)
        #expect(EdgeColor.median(of: dot, canvasWidth: 5, canvasHeight: 1) == (9, 8, 7))
        let line = TestImages.solid(width: 3, height: 2, (1, 2, 3, 255), hasAlpha: false)
        #expect(EdgeColor.median(of: line, canvasWidth: 3, canvasHeight: 9) == (1, 2, 3))
    }

    // MARK: BlurredBackdrop

    /// The canvas is opaque, the photo is pasted unchanged, and the bands are not flat.
    @Test("blurred canvas", arguments: [(300, 400), (400, 300), (1200, 1200), (97, 13)])
    func blurredCanvas(_ box: (Int, Int)) {
        let (width, height) = box
        let scale = min(Double(width) / 900, Double(height) / 600)
        let photo = TestImages.photoLike(width: max(1, Int(900 * scale)), height: max(1, Int(600 * scale)))
        let canvas = BlurredBackdrop.padded(photo, width: width, height: height)
        #expect(canvas.width == width && canvas.height == height && !canvas.hasAlpha)
        #expect(stride(from: 3, to: canvas.pixels.count, by: 4).allSatisfy { canvas.pixels[$0] == 255 })
        let left = (width - photo.width) / 2, top = (height - photo.height) / 2
        for y in [0, photo.height / 2, photo.height - 1] {
            for x in [0, photo.width / 2, photo.width - 1] {
                #expect(canvas.pixel(x: left + x, y: top + y) == photo.pixel(x: x, y: y))
            }
        }
        let bandRows = Array(0..<top) + Array((top + photo.height)..<height)
        if bandRows.count >= 2 {
            let values = Set(bandRows.flatMap { y in (0..<width).map { canvas.pixel(x: $0, y: y).g } })
            #expect(values.count > 4, "the bands are nearly flat: \(values.count) levels")
        }
    }

    /// Each band enlarged on its own (what an opaque photo gets) is, pixel for pixel, that part of
    /// the whole blurred copy enlarged (what a photo with alpha gets): no seam where pieces meet.
    @Test("band pieces match the whole enlargement", arguments: [(320, 360), (500, 210), (333, 333), (301, 97)])
    func bandPiecesMatchTheWholeEnlargement(_ box: (Int, Int)) {
        let (width, height) = box
        let scale = min(Double(width) / 300, Double(height) / 200)
        let photo = TestImages.photoLike(width: max(1, Int(300 * scale)), height: max(1, Int(200 * scale)))
        let small = BlurredBackdrop.blurredCover(of: photo, width: width, height: height)
        var whole = PixelBuffer(width: width, height: height), pieces = PixelBuffer(width: width, height: height)
        BilinearEnlarge.enlarge(small, part: PixelBox(x: 0, y: 0, width: width, height: height), width: width, height: height, into: &whole)
        let left = (width - photo.width) / 2, top = (height - photo.height) / 2
        let bands = BlurredBackdrop.bands(photoWidth: photo.width, photoHeight: photo.height, left: left, top: top, width: width, height: height)
        #expect(!bands.isEmpty)
        for band in bands { BilinearEnlarge.enlarge(small, part: band, width: width, height: height, into: &pieces) }
        for band in bands {
            var differing = 0
            for y in band.y..<(band.y + band.height) {
                for x in band.x..<(band.x + band.width) where pieces.pixel(x: x, y: y) != whole.pixel(x: x, y: y) { differing += 1 }
            }
            #expect(differing == 0, "\(differing) pixels of the band \(band) differ from the whole enlargement")
        }
    }

    /// The enlargement of a flat copy is that flat colour, and of a step is monotone between the
    /// step's two levels (bilinear never overshoots).
    @Test func enlargementIsFlatOnFlatAndMonotone() {
        let flat = TestImages.solid(width: 10, height: 6, (12, 34, 56, 255), hasAlpha: false)
        var canvas = PixelBuffer(width: 83, height: 47)
        BilinearEnlarge.enlarge(flat, part: PixelBox(x: 0, y: 0, width: 83, height: 47), width: 83, height: 47, into: &canvas)
        #expect(stride(from: 0, to: canvas.pixels.count, by: 4).allSatisfy { canvas.pixels[$0..<($0 + 4)].elementsEqual([12, 34, 56, 255]) })

        var step = TestImages.solid(width: 8, height: 1, (0, 0, 0, 255), hasAlpha: false)
        Self.fill(&step, x: 4, y: 0, width: 4, height: 1, (200, 200, 200, 255))
        var wide = PixelBuffer(width: 64, height: 3)
        BilinearEnlarge.enlarge(step, part: PixelBox(x: 0, y: 0, width: 64, height: 3), width: 64, height: 3, into: &wide)
        let row = (0..<64).map { Int(wide.pixel(x: $0, y: 1).g) }
        #expect(row.first == 0 && row.last == 200 && zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "\(row)")
    }

    /// The box blur keeps a flat image flat and the mean of any image (edges repeat their pixel,
    /// so nothing darkens near them), and smooths a step.
    @Test func boxBlurKeepsFlatAndSmoothsSteps() {
        var flat = TestImages.solid(width: 40, height: 30, (10, 200, 90, 255), hasAlpha: false)
        BoxBlur.blur(&flat, radius: 5)
        #expect(stride(from: 0, to: flat.pixels.count, by: 4).allSatisfy { flat.pixels[$0..<($0 + 4)].elementsEqual([10, 200, 90, 255]) })

        var step = TestImages.solid(width: 60, height: 10, (0, 0, 0, 255), hasAlpha: false)
        Self.fill(&step, x: 30, y: 0, width: 30, height: 10, (240, 240, 240, 255))
        BoxBlur.blur(&step, radius: 4)
        let row = (0..<60).map { Int(step.pixel(x: $0, y: 5).r) }
        #expect(row[0] == 0 && row[59] == 240)
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "the step is not monotone: \(row)")
        #expect(row[27] > 0 && row[32] < 240 && abs(row[29] + row[30] - 240) <= 2, "the step is not smoothed: \(row)")
    }
}

/// Hand-run: what `blur` adds to a padded thumbnail over a flat colour, for an opaque photo and for
/// one with alpha (the whole canvas is enlarged under it). Skipped unless THUMBD_OPS_BENCH=1; in
/// release mode this file's `@testable import` needs testing enabled:
///
///     THUMBD_OPS_BENCH=1 swift test -c release -Xswiftc -enable-testing --scratch-path .build-ops --filter PadBlurBenchmark
@Suite(.enabled(if: ProcessInfo.processInfo.environment["THUMBD_OPS_BENCH"] == "1", "set THUMBD_OPS_BENCH=1 to measure"))
struct PadBlurBenchmark {
    @Test func timings() {
        for (width, height, photoWidth, photoHeight) in [(1200, 1200, 1200, 800), (300, 400, 300, 200), (1200, 1200, 800, 1200)] {
            let photo = TestImages.photoLike(width: photoWidth, height: photoHeight)
            let label = "pad \(photoWidth)x\(photoHeight) in \(width)x\(height)"
            ResizeBenchmark.measure(label + " blur", iterations: 30) { BlurredBackdrop.padded(photo, width: width, height: height) }
            ResizeBenchmark.measure(label + " white", iterations: 30) {
                PadCanvas.padded(photo, width: width, height: height, background: .white)
            }
            var marked = photo
            marked.hasAlpha = true
            ResizeBenchmark.measure(label + " blur (alpha)", iterations: 30) { BlurredBackdrop.padded(marked, width: width, height: height) }
        }
    }
}
