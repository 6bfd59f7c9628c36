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

    /// The bands enlarged piece by piece (the opaque path) are exactly what enlarging the whole
    /// blurred copy gives (the path for photos with alpha): no seam where the pieces meet.
    @Test func bandPiecesMatchTheWholeEnlargement() {
        let photo = TestImages.photoLike(width: 300, height: 200)
        var marked = photo
        marked.hasAlpha = true
        let opaquePath = BlurredBackdrop.padded(photo, width: 320, height: 360)
        let alphaPath = BlurredBackdrop.padded(marked, width: 320, height: 360)
        #expect(opaquePath.pixels == alphaPath.pixels)
    }

    /// The box blur keeps a flat image flat and the mean of any image (edges repeat their pixel,
    /// so nothing darkens near them), and smooths a step.
    @Test func boxBlurKeepsFlatAndSmoothsSteps() {
        var flat = TestImages.solid(width: 40, height: 30, (10, 200, 90, 255), hasAlpha: false)
        BoxBlur.blur(&flat, radius: 5)
        #expect(flat == TestImages.solid(width: 40, height: 30, (10, 200, 90, 255), hasAlpha: false))

        var step = TestImages.solid(width: 60, height: 10, (0, 0, 0, 255), hasAlpha: false)
        Self.fill(&step, x: 30, y: 0, width: 30, height: 10, (240, 240, 240, 255))
        BoxBlur.blur(&step, radius: 4)
        let row = (0..<60).map { Int(step.pixel(x: $0, y: 5).r) }
        #expect(row[0] == 0 && row[59] == 240)
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "the step is not monotone: \(row)")
        #expect(row[27] > 0 && row[32] < 240 && abs(row[29] + row[30] - 240) <= 2, "the step is not smoothed: \(row)")
    }
}

/// Hand-run: what `blur` adds to a padded thumbnail. Skipped unless THUMBD_OPS_BENCH=1.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["THUMBD_OPS_BENCH"] == "1", "set THUMBD_OPS_BENCH=1 to measure"))
struct PadBlurBenchmark {
    @Test func timings() {
        for (width, height, photoWidth, photoHeight) in [(1200, 1200, 1200, 800), (300, 400, 300, 200), (1200, 1200, 800, 1200)] {
            let photo = TestImages.photoLike(width: photoWidth, height: photoHeight)
            let label = "pad \(photoWidth)x\(photoHeight) in \(width)x\(height)"
            ResizeBenchmark.measure(label + " blur", iterations: 30) { BlurredBackdrop.padded(photo, width: width, height: height) }
            ResizeBenchmark.measure(label + " white", iterations: 30) {
                PadCanvas.padded(photo, width: width, height: height, fill: .color(red: 255, green: 255, blue: 255))
            }
            var marked = photo
            marked.hasAlpha = true
            ResizeBenchmark.measure(label + " blur (alpha)", iterations: 30) { BlurredBackdrop.padded(marked, width: width, height: height) }
        }
    }
}
