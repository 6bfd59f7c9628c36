import ByteUnits
import Foundation
import ImageCodecs
import ImageCore
import ImageOps
import ImageQuality
import Testing
import TestSupport
import UploadPreparation

struct UploadPreparerTests {
    /// The issue's case: five 12 MP phone photos, each back under 300 KiB, upright (compared with
    /// what a person sees, not only by shape), and with no EXIF, GPS, XMP or comment left in the bytes.
    @Test func fiveTwelveMegapixelPhotos() async throws {
        let photos = Fixtures.twelveMegapixelPhotos
        let prepared = try await UploadPreparer.prepare(Fixtures.sources(photos), settings: UploadSettings(), run: Fixtures.run)
        #expect(prepared.count == 5)
        for (photo, image) in zip(photos, prepared) {
            #expect(image.bytes.count <= 300 * 1024, "\(photo.name): \(image.bytes.count) bytes")
            #expect(image.action == .encoded)
            #expect(image.format == .jpeg)
            #expect(image.removedMetadata.isSuperset(of: [.exif, .xmp, .comment]))
            try expectNoMetadata(image.bytes, photo.name)
            let decoded = try ImageCodecs.decode(image.bytes)
            #expect(decoded.info.orientation == .up)
            #expect((decoded.pixels.width, decoded.pixels.height) == (image.width, image.height))
            #expect(max(image.width, image.height) == 1200)
            let landscape = photo.upright.width > photo.upright.height
            #expect((image.width > image.height) == landscape, "\(photo.name) is not upright")
            try expectLooksLike(decoded.pixels, photo.upright, photo.name)
        }
    }

    /// `square`: a centred square of the upright photo, 1200 px a side.
    @Test func squareCrop() async throws {
        let photos = Array(Fixtures.twelveMegapixelPhotos.prefix(2))
        var settings = UploadSettings()
        settings.square = true
        let prepared = try await UploadPreparer.prepare(Fixtures.sources(photos), settings: settings, run: Fixtures.run)
        for (photo, image) in zip(photos, prepared) {
            #expect(image.width == 1200 && image.height == 1200)
            #expect(image.bytes.count <= settings.budgetBytes)
            let side = min(photo.upright.width, photo.upright.height)
            let region = SourceRegion(x: Double(photo.upright.width - side) / 2, y: Double(photo.upright.height - side) / 2,
                                      width: Double(side), height: Double(side))
            let reference = Resampler.resize(photo.upright, region: region, width: 300, height: 300)
            let decoded = try ImageCodecs.decode(image.bytes).pixels
            let ssim = SSIM.compare(Resampler.resize(decoded, width: 300, height: 300), reference)
            #expect(ssim > 0.9, "\(photo.name): SSIM \(ssim) against the centred square")
        }
    }

    /// Budgets that force the search: never over, close under, and few encodes.
    @Test(arguments: [40, 80, 150])
    func budgetIsUsedNotWasted(kib: Int) async throws {
        var settings = UploadSettings()
        settings.budgetBytes = kib * 1024
        let prepared = try await UploadPreparer.prepare(Fixtures.sources(Fixtures.twelveMegapixelPhotos), settings: settings,
                                                        run: Fixtures.run)
        for image in prepared {
            #expect(image.bytes.count <= settings.budgetBytes)
            #expect(image.steps.last(where: \.fits)?.bytes == image.bytes.count)
            if image.steps.count > 1 {
                #expect(Double(image.bytes.count) >= 0.85 * Double(settings.budgetBytes),
                        "\(image.source): \(image.bytes.count) of \(settings.budgetBytes) after \(image.steps)")
            }
            #expect(image.steps.count <= 8, "\(image.source): \(image.steps.count) encodes")
        }
        let average = Double(prepared.map(\.steps.count).reduce(0, +)) / Double(prepared.count)
        #expect(average <= 4, "average \(average) encodes per image")
    }

    /// A sixth image is refused before anything is decoded; so is an empty batch.
    @Test func countRulesComeFirst() async throws {
        let counter = DecodeCounter()
        let six = Fixtures.sources(Fixtures.twelveMegapixelPhotos) + [Fixtures.sources(Fixtures.twelveMegapixelPhotos)[0]]
        await #expect(throws: UploadError(.tooManyImages, "6 images given: a product takes at most 5")) {
            try await UploadPreparer.prepare(six, settings: UploadSettings(), onDecode: counter.observer, run: Fixtures.run)
        }
        await #expect(throws: UploadError(.noImages, "no images given: a product needs 1 to 5")) {
            try await UploadPreparer.prepare([], settings: UploadSettings(), onDecode: counter.observer, run: Fixtures.run)
        }
        #expect(counter.value == 0)
    }

    /// An image already within every rule comes back byte for byte, still checked by one decode.
    @Test func smallCleanImagePassesThrough() async throws {
        let small = try ImageCodecs.encode(PhonePhoto.synthetic(width: 640, height: 480, seed: 7), .jpeg(quality: 85))
        let counter = DecodeCounter()
        let prepared = try await UploadPreparer.prepare([SourceImage(name: "small.jpg", bytes: small)], settings: UploadSettings(),
                                                        onDecode: counter.observer, run: Fixtures.run)
        #expect(prepared[0].action == .passedThrough)
        #expect(prepared[0].bytes == small)
        #expect(prepared[0].quality == nil && prepared[0].steps.isEmpty)
        #expect(counter.value == 1)

        var settings = UploadSettings()
        settings.passThrough = false
        let reencoded = try await UploadPreparer.prepare([SourceImage(name: "small.jpg", bytes: small)], settings: settings,
                                                         run: Fixtures.run)
        #expect(reencoded[0].action == .encoded && reencoded[0].bytes != small)
    }

    /// Within every rule but carrying EXIF/XMP/a comment: the segments go, the scan data stays
    /// byte for byte (the same pixels), nothing is re-encoded.
    @Test func metadataIsRemovedLosslessly() async throws {
        let upright = PhonePhoto.synthetic(width: 640, height: 480, seed: 8)
        let withMetadata = try PhonePhoto.jpeg(upright: upright, orientation: .up, quality: 85)
        let prepared = try await UploadPreparer.prepare([SourceImage(name: "meta.jpg", bytes: withMetadata)],
                                                        settings: UploadSettings(), run: Fixtures.run)
        #expect(prepared[0].action == .metadataRemoved)
        try expectNoMetadata(prepared[0].bytes, "meta.jpg")
        #expect(try ImageCodecs.decode(prepared[0].bytes).pixels == ImageCodecs.decode(withMetadata).pixels)
        #expect(prepared[0].bytes.count < withMetadata.count)
    }

    /// A photo within every rule but tagged with a wide-gamut profile cannot lose the profile with
    /// its metadata: it is converted to sRGB and encoded, and the manifest says so. One tagged sRGB
    /// still has its metadata removed losslessly.
    @Test func aWideGamutPhotoIsConvertedNotStripped() async throws {
        let plain = try ImageCodecs.encode(PhonePhoto.synthetic(width: 640, height: 480, seed: 9), .jpeg(quality: 85))
        let romm = try TestPaths.bytes(URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/rommrgb.icc"))
        let wide = ICCTagging.jpeg(plain, profile: romm)
        let prepared = try await UploadPreparer.prepare([SourceImage(name: "wide.jpg", bytes: wide)], settings: UploadSettings(),
                                                        run: Fixtures.run)
        #expect(prepared[0].action == .encoded)
        #expect(prepared[0].color.hasPrefix("converted; from="), "\(prepared[0].color)")
        try expectNoMetadata(prepared[0].bytes, "wide.jpg")
        let manifest = UploadManifest(settings: UploadSettings(), images: prepared)
        #expect(manifest.images[0].color == prepared[0].color)
        // The colours moved: the prepared pixels are not the samples read as sRGB.
        let asStored = try ImageCodecs.decode(plain).pixels
        #expect(try ImageCodecs.decode(prepared[0].bytes).pixels != asStored)

        let srgb = ICCTagging.jpeg(plain, profile: try TestPaths.bytes(URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/srgb.icc")))
        let kept = try await UploadPreparer.prepare([SourceImage(name: "srgb.jpg", bytes: srgb)], settings: UploadSettings(), run: Fixtures.run)
        #expect(kept[0].action == .metadataRemoved && kept[0].color == "srgb")
    }

    /// A budget nothing can meet fails with budget_unreachable, naming the image; never an oversized file.
    @Test func unreachableBudget() async throws {
        var settings = UploadSettings()
        settings.budgetBytes = 600
        let photo = Fixtures.twelveMegapixelPhotos[0]
        do {
            _ = try await UploadPreparer.prepare([SourceImage(name: photo.name, bytes: photo.jpeg)], settings: settings, run: Fixtures.run)
            Issue.record("a 600-byte budget was met")
        } catch let error as UploadError {
            #expect(error.code == .budgetUnreachable)
            #expect(error.image == ImageReference(position: 1, name: photo.name))
        }
    }

    /// One corrupt image among five: the batch fails, naming that image and the reason.
    @Test func oneCorruptImageFailsTheBatch() async throws {
        var sources = Fixtures.sources(Fixtures.twelveMegapixelPhotos)
        var damaged = sources[2].bytes
        let scanStart = damaged.count / 3
        for i in scanStart..<(scanStart + 4096) { damaged[i] = UInt8(truncatingIfNeeded: i &* 131) }
        sources[2] = SourceImage(name: "broken.jpg", bytes: damaged)
        do {
            _ = try await UploadPreparer.prepare(sources, settings: UploadSettings(), run: Fixtures.run)
            Issue.record("a batch with a corrupt image was prepared")
        } catch let error as UploadError {
            #expect(error.image == ImageReference(position: 3, name: "broken.jpg"))
            #expect([.corruptImage, .truncatedImage].contains(error.code), "\(error)")
        }
        sources[2] = SourceImage(name: "notes.txt", bytes: Array("not an image".utf8))
        await #expect(throws: UploadError(.unsupportedFormat, "not a JPEG, PNG, WebP, AVIF, HEIC, GIF, TIFF, BMP or JPEG XL image (unrecognised signature)",
                                          image: ImageReference(position: 3, name: "notes.txt"))) {
            try await UploadPreparer.prepare(sources, settings: UploadSettings(), run: Fixtures.run)
        }
    }

    /// WebP output fits the budget the same way; a PNG with alpha becomes a JPEG on white.
    @Test func webpOutputAndTransparentPNG() async throws {
        var settings = UploadSettings()
        settings.format = .webp
        settings.budgetBytes = 60 * 1024
        let photo = Fixtures.twelveMegapixelPhotos[1]
        let webp = try await UploadPreparer.prepare([SourceImage(name: photo.name, bytes: photo.jpeg)], settings: settings, run: Fixtures.run)
        #expect(webp[0].format == .webp && webp[0].bytes.count <= settings.budgetBytes)
        #expect(try ImageCodecs.readInfo(webp[0].bytes).format == .webp)

        var transparent = PixelBuffer(width: 64, height: 64, hasAlpha: true)
        for i in stride(from: 0, to: transparent.pixels.count, by: 4) { transparent.pixels[i] = 200 }  // red at alpha 0
        let png = try ImageCodecs.encode(transparent, .png)
        let jpeg = try await UploadPreparer.prepare([SourceImage(name: "t.png", bytes: png)], settings: UploadSettings(), run: Fixtures.run)
        let pixel = try ImageCodecs.decode(jpeg[0].bytes).pixels.pixel(x: 32, y: 32)
        #expect(pixel.r > 245 && pixel.g > 245 && pixel.b > 245, "transparent became \(pixel), not white")
    }

    @Test func byteSizes() {
        #expect(ByteSize.parse("300KiB") == 307_200)
        #expect(ByteSize.parse("300k") == 307_200)
        #expect(ByteSize.parse("300KB") == 300_000)
        #expect(ByteSize.parse("1.5MiB") == 1_572_864)
        #expect(ByteSize.parse("4096") == 4096)
        #expect(ByteSize.parse("12 parsecs") == nil)
        #expect(ByteSize.parse("-5") == nil)
        #expect(ByteSize.format(307_200) == "300 KiB")
    }

    private func expectNoMetadata(_ jpeg: [UInt8], _ name: String) throws {
        let markers = PhonePhoto.markers(jpeg)
        #expect(!markers.contains(0xE1) && !markers.contains(0xFE), "\(name) keeps APP1/COM: \(markers)")
        for text in [PhonePhoto.cameraMake, PhonePhoto.comment, PhonePhoto.xmpMarker, "Exif\0\0"] {
            #expect(!PhonePhoto.contains(jpeg, text), "\(name) still contains \(text.debugDescription)")
        }
    }

    /// Upright means it matches the upright picture far better than any other turn of it.
    private func expectLooksLike(_ prepared: PixelBuffer, _ upright: PixelBuffer, _ name: String) throws {
        let small = Resampler.resize(prepared, width: prepared.width / 4, height: prepared.height / 4)
        let reference = Resampler.resize(upright, width: small.width, height: small.height)
        let ssim = SSIM.compare(small, reference)
        #expect(ssim > 0.9, "\(name): SSIM \(ssim) against the upright photo")
        let turned = Resampler.resize(upright.oriented(.down), width: small.width, height: small.height)
        #expect(SSIM.compare(small, turned) < ssim - 0.1, "\(name): the upside-down photo matches as well")
    }
}

/// A seller's iPhone photo as HEIC: accepted, decoded, and re-encoded as the settings say (HEIC is
/// never handed on: it is not a format the upload may keep).
@Suite(.requires(HEIFEnc.available, Comment(rawValue: HEIFEnc.missing ?? "")))
struct HEICUploadTests {
    @Test func heicIsPreparedAsJPEG() async throws {
        let upright = PhonePhoto.synthetic(width: 400, height: 300, seed: 12)
        let heic = try HEIFEnc.encode(upright)
        let prepared = try await UploadPreparer.prepare([SourceImage(name: "IMG_0001.HEIC", bytes: heic)], settings: UploadSettings(), run: Fixtures.run)
        let image = try #require(prepared.first)
        #expect(image.sourceInfo.format == .heic)
        #expect(image.action == .encoded && image.format == .jpeg)
        let decoded = try ImageCodecs.decode(image.bytes)
        #expect(decoded.info.format == .jpeg && decoded.pixels.width == 400 && decoded.pixels.height == 300)
        let ssim = SSIM.compare(decoded.pixels, upright)
        #expect(ssim > 0.85, "SSIM \(ssim)")
    }
}

