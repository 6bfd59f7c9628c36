import Foundation
import ImageCore
import ImageOps
import ImageQuality
import Testing
import TestSupport
import Thumbnailer

/// `cover` and `pad` at boxes of several shapes against Pillow's `ImageOps.fit` and `ImageOps.pad`
/// on real photos (the corpus's JPEGs, and two with an EXIF rotation that both sides must undo).
@Suite("Cover and pad against Pillow",
       .requires(TestPaths.corpora != nil, Comment(rawValue: TestPaths.corporaMissing)),
       .requires(PillowFitAndPad.ready, Comment(rawValue: PillowFitAndPad.missing)))
struct FitReferenceTests {
    static let shapes = [(300, 400), (320, 180), (240, 320), (400, 300)]
    /// A colour no photo's edge is likely to match exactly, so the bands can be told apart.
    static let band: (red: UInt8, green: UInt8, blue: UInt8) = (32, 96, 160)

    static func photos() throws -> [URL] {
        let folder = try #require(TestPaths.corpus("photos"))
        let jpegs = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "jpg" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        let rotated = ["Landscape_6.jpg", "Portrait_8.jpg"].compactMap { TestPaths.corpus("jpeg/exif-orientation/" + $0) }
        let all = jpegs + rotated
        try #require(all.count >= 10, "the corpus holds only \(all.count) photos")
        return all
    }

    /// The centre crop of each shape looks as Pillow's does: SSIM (luma) at least 0.99 on average
    /// and 0.97 for every photo and shape.
    @Test func coverMatchesPillowFit() throws {
        let photos = try Self.photos()
        let jobs = photos.flatMap { photo in
            Self.shapes.map { PillowFitAndPad.Job(source: photo.path, operation: "fit", width: $0.0, height: $0.1) }
        }
        let references = try PillowFitAndPad.results(of: jobs)
        var scores: [(String, Double)] = []
        for (job, reference) in zip(jobs, references) {
            let request = ThumbnailRequest(width: job.width, height: job.height, fit: .cover, gravity: .center)
            let ours = try Thumbnailer.render(from: TestPaths.bytes(URL(fileURLWithPath: job.source)), request).pixels
            let label = "\(URL(fileURLWithPath: job.source).lastPathComponent) at \(job.width)x\(job.height)"
            try #require(ours.width == job.width && ours.height == job.height, "\(label): ours is \(ours.width)x\(ours.height)")
            try #require(reference.pixels.width == job.width && reference.pixels.height == job.height)
            scores.append((label, SSIM.compare(ours, reference.pixels)))
        }
        let mean = scores.map(\.1).reduce(0, +) / Double(scores.count)
        let worst = try #require(scores.min { $0.1 < $1.1 })
        #expect(mean >= 0.99, "mean SSIM \(mean) over \(scores.count) crops")
        #expect(worst.1 >= 0.97, "worst SSIM \(worst.1): \(worst.0)")
    }

    /// Every band pixel is exactly the colour, the photo is centred within a pixel and is as large
    /// as Pillow's within a pixel, and it looks as Pillow's photo does (SSIM at least 0.97) on the
    /// part both hold, away from the seams where the two round the placement differently.
    @Test func padMatchesPillowPad() throws {
        let photos = try Self.photos()
        let color = [Int(Self.band.red), Int(Self.band.green), Int(Self.band.blue)]
        let jobs = photos.flatMap { photo in
            Self.shapes.map { PillowFitAndPad.Job(source: photo.path, operation: "pad", width: $0.0, height: $0.1, color: color) }
        }
        let references = try PillowFitAndPad.results(of: jobs)
        var banded = 0
        for (job, reference) in zip(jobs, references) {
            let request = ThumbnailRequest(width: job.width, height: job.height, fit: .pad, gravity: .center,
                                           background: .color(red: Self.band.red, green: Self.band.green, blue: Self.band.blue))
            let rendered = try Thumbnailer.render(from: TestPaths.bytes(URL(fileURLWithPath: job.source)), request)
            let ours = rendered.pixels
            let label = "\(URL(fileURLWithPath: job.source).lastPathComponent) at \(job.width)x\(job.height)"
            try #require(ours.width == job.width && ours.height == job.height, "\(label): ours is \(ours.width)x\(ours.height)")

            let photo = Self.fittedPlacement(uprightWidth: rendered.photo.width, uprightHeight: rendered.photo.height,
                                             width: job.width, height: job.height)
            let theirs = reference.photo
            #expect(abs(photo.width - theirs.width) <= 1 && abs(photo.height - theirs.height) <= 1,
                    "\(label): our photo is \(photo.width)x\(photo.height), Pillow's \(theirs.width)x\(theirs.height)")
            // Centred: the bands on either side differ by a pixel at most.
            #expect(abs(photo.x - (job.width - photo.x - photo.width)) <= 1, "\(label): left band \(photo.x) of \(job.width - photo.width)")
            #expect(abs(photo.y - (job.height - photo.y - photo.height)) <= 1, "\(label): top band \(photo.y) of \(job.height - photo.height)")
            if photo.width < job.width || photo.height < job.height { banded += 1 }

            let offColour = PadPixels.count(in: ours, outside: photo) { !PadPixels.equals($0, Self.band) }
            #expect(offColour == 0, "\(label): \(offColour) band pixels are not exactly \(Self.band)")
            // The photo really is where we think it is: its outermost rows and columns are not all band.
            #expect(PadPixels.edgesShowPhoto(ours, photo, band: Self.band), "\(label): the photo does not reach its placement's edges")
            let theirOffColour = PadPixels.count(in: reference.pixels, outside: theirs) { !PadPixels.equals($0, Self.band) }
            try #require(theirOffColour == 0, "\(label): Pillow's placement \(theirs) is not where its bands are")

            let seam = 2
            let commonWidth = min(photo.width, theirs.width) - 2 * seam, commonHeight = min(photo.height, theirs.height) - 2 * seam
            guard commonWidth >= 16, commonHeight >= 16 else { continue }
            let ourPart = ours.part(x: photo.x + seam, y: photo.y + seam, width: commonWidth, height: commonHeight)
            let theirPart = reference.pixels.part(x: theirs.x + seam, y: theirs.y + seam, width: commonWidth, height: commonHeight)
            let ssim = SSIM.compare(ourPart, theirPart)
            #expect(ssim >= 0.97, "\(label): the photo part's SSIM against Pillow's is \(ssim)")
        }
        #expect(banded >= jobs.count / 2, "only \(banded) of \(jobs.count) pads have bands: the shapes test too little")
    }

    /// Where a photo of the upright size lands in a padded box: fitted inside it (rounded to the
    /// nearest pixel), then centred with the odd pixel after it.
    static func fittedPlacement(uprightWidth: Int, uprightHeight: Int, width: Int, height: Int) -> PixelBox {
        let (w, h) = (Double(uprightWidth), Double(uprightHeight))
        let (fittedWidth, fittedHeight) = w / h >= Double(width) / Double(height)
            ? (width, min(height, max(1, Int((Double(width) * h / w).rounded()))))
            : (min(width, max(1, Int((Double(height) * w / h).rounded()))), height)
        return PixelBox(x: (width - fittedWidth) / 2, y: (height - fittedHeight) / 2, width: fittedWidth, height: fittedHeight)
    }
}
