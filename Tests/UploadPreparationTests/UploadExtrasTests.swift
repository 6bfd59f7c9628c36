import ImageCodecs
import ImageCore
import ImageOps
import ImageQuality
import Testing
import TestSupport
import UploadPreparation

/// `extraSides`: smaller copies of each prepared photo, the same picture, from its one decode.
struct UploadExtrasTests {
    /// Square photos with two extra sizes: one decode a photo; each copy the requested size,
    /// within the budget, and as good as the same square prepared on its own at that size.
    @Test func extrasAreTheSamePictureFromOneDecode() async throws {
        let photos = Array(Fixtures.twelveMegapixelPhotos.prefix(2))
        var settings = UploadSettings()
        settings.square = true
        settings.gravity = .center
        settings.extraSides = [160, 480]
        let decodes = DecodeCounter()
        let prepared = try await UploadPreparer.prepare(Fixtures.sources(photos), settings: settings, onDecode: decodes.observer,
                                                        run: Fixtures.run)
        #expect(decodes.value == photos.count)
        for (photo, image) in zip(photos, prepared) {
            #expect(image.extras.map(\.side) == [480, 160], "largest first")
            for extra in image.extras {
                #expect((extra.width, extra.height) == (extra.side, extra.side))
                #expect(extra.bytes.count <= settings.budgetBytes)
                let decoded = try ImageCodecs.decode(extra.bytes)
                #expect((decoded.pixels.width, decoded.pixels.height) == (extra.width, extra.height))
                #expect((try ImageCodecs.metadata(in: extra.bytes) ?? []).isEmpty, "\(photo.name): metadata left in the copy")
                // As close to the photo's centred square as the same square prepared on its own at
                // this size (both are JPEG encodes: they differ from each other by their noise).
                var alone = settings
                alone.extraSides = []
                alone.maxSide = extra.side
                alone.minSide = min(alone.minSide, extra.side)
                let single = try UploadPreparer.prepare(SourceImage(name: photo.name, bytes: photo.jpeg),
                                                        info: try ImageCodecs.readInfo(photo.jpeg), as: ImageReference(position: 1, name: photo.name),
                                                        settings: alone)
                let side = min(photo.upright.width, photo.upright.height)
                let region = SourceRegion(x: Double(photo.upright.width - side) / 2, y: Double(photo.upright.height - side) / 2,
                                          width: Double(side), height: Double(side))
                let reference = Resampler.resize(photo.upright, region: region, width: extra.side, height: extra.side)
                let ours = SSIM.compare(decoded.pixels, reference)
                let theirs = SSIM.compare(try ImageCodecs.decode(single.bytes).pixels, reference)
                #expect(ours >= theirs - 0.005, "\(photo.name) at \(extra.side): SSIM \(ours) against the square, alone \(theirs)")
            }
        }
        let manifest = UploadManifest(settings: settings, images: prepared, includingData: true)
        #expect(manifest.rules.extraSides == [480, 160])
        let first = try #require(manifest.images.first?.extras)
        #expect(first.map(\.output) == ["1-IMG_0001-480.jpg", "1-IMG_0001-160.jpg"])
        #expect(first.allSatisfy { $0.data != nil })
        #expect(UploadManifest(settings: UploadSettings(), images: []).rules.extraSides == nil)
    }

    /// A photo handed on untouched still gets its copies (decoded once, at the scale they need);
    /// a size over the photo's own gives a copy at the photo's size, never enlarged.
    @Test func aPassedThroughPhotoGetsItsCopiesToo() async throws {
        let small = PhonePhoto.synthetic(width: 400, height: 300, seed: 9)
        let jpeg = try ImageCodecs.encode(small, .jpeg(quality: 85))
        var settings = UploadSettings()
        settings.extraSides = [200, 1000]
        let prepared = try await UploadPreparer.prepare([SourceImage(name: "small.jpg", bytes: jpeg)], settings: settings, run: Fixtures.run)
        let image = try #require(prepared.first)
        #expect(image.action == .passedThrough && image.bytes == jpeg)
        #expect(image.extras.map { [$0.side, $0.width, $0.height] } == [[1000, 400, 300], [200, 200, 150]])
        var alone = settings
        alone.extraSides = []
        alone.maxSide = 200
        alone.passThrough = false
        let single = try UploadPreparer.prepare(SourceImage(name: "small.jpg", bytes: jpeg), info: try ImageCodecs.readInfo(jpeg),
                                                as: ImageReference(position: 1, name: "small.jpg"), settings: alone)
        let reference = Resampler.resize(small, width: 200, height: 150)
        let ours = SSIM.compare(try ImageCodecs.decode(try #require(image.extras.last).bytes).pixels, reference)
        let theirs = SSIM.compare(try ImageCodecs.decode(single.bytes).pixels, reference)
        #expect(ours >= theirs - 0.005, "SSIM \(ours) against the photo, prepared alone at 200 \(theirs)")
    }

    /// A photo the budget shrank: no copy is larger than it, though its pixels before the
    /// shrinking were.
    @Test func noCopyIsLargerThanAPhotoTheBudgetShrank() async throws {
        let photo = try #require(Fixtures.twelveMegapixelPhotos.first)
        var settings = UploadSettings()
        settings.budgetBytes = 40 * 1024
        settings.qualityFloor = 90
        settings.extraSides = [1100, 200]
        let image = try #require(try await UploadPreparer.prepare(Fixtures.sources([photo]), settings: settings, run: Fixtures.run).first)
        let longest = max(image.width, image.height)
        try #require(longest < 1100, "the budget did not shrink the photo (\(image.width)x\(image.height))")
        let sides = image.extras.map { max($0.width, $0.height) }
        #expect(sides.count == 2 && sides[0] <= longest && sides[1] == 200, "copies \(sides), the photo \(longest)")
    }

    @Test func extraSizesAreChecked() {
        var settings = UploadSettings()
        settings.extraSides = [160, 160]
        #expect(throws: UploadError.self) { try settings.validate() }
        settings.extraSides = [8]
        #expect(throws: UploadError.self) { try settings.validate() }
        settings.extraSides = [100, 200, 300, 400, 500]
        #expect(throws: UploadError.self) { try settings.validate() }
        settings.extraSides = [100, 200, 300, 400]
        #expect(throws: Never.self) { try settings.validate() }
    }
}
