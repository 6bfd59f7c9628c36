import CropScenes
import ImageCodecs
import ImageCore
import ImageQuality
import Testing
import Thumbnailer

/// A smart crop weighs the sharp detail of the pixels it was decoded at, so one decode serves the
/// smart sizes of a photo only where their own decode would have given the very same pixels: then
/// their thumbnails are the single-size ones, pixel for pixel. A JPEG of 2,048 px or more is looked
/// at on its block means, which every scale gives alike: one decode serves all its sizes, each with
/// the window it has alone.
struct SmartCropSharingTests {
    /// A 600x400 product scene (a frame, a background, a product placed off-centre).
    static let scene = SceneGenerator(longSide: 600, productPhotos: SmartCropTests.productPhotos())
        .scenes(repetitions: 1, seed: 19)[2].image

    static func smart(_ side: Int) -> ThumbnailRequest { ThumbnailRequest(size: side, fit: .cover, gravity: .smart) }

    /// 600x400 as JPEG: a 400x400 cover region needs 2x200 = 400 px (8/8), 150 needs 300 px (6/8, so 8/8),
    /// 50 needs 100 px (2/8).
    @Test func aJPEGsSizesThatNeedTheSameScaleShareItsDecode() throws {
        let jpeg = try ImageCodecs.encode(Self.scene, .jpeg(quality: 90))
        let photo = try Thumbnailer.decode(jpeg, for: [Self.smart(200), Self.smart(150), Self.smart(50)])
        #expect(photo.decodedWidth == 600)
        #expect(photo.serves(Self.smart(150)))
        #expect(!photo.serves(Self.smart(50)), "a 1/4 decode gives other pixels, so perhaps another window")
        let shared = try Thumbnailer.render(photo, Self.smart(150))
        let alone = try Thumbnailer.render(from: jpeg, Self.smart(150))
        #expect(shared.crop == alone.crop)
        #expect(shared.pixels == alone.pixels)
    }

    /// AVIF has no reduced-size decoding: every smart size of it is made from the one full decode.
    @Test func everySmartSizeOfAFullSizeFormatSharesItsDecode() throws {
        let avif = try ImageCodecs.encode(Self.scene, .avif(quality: 80, speed: 8))
        let photo = try Thumbnailer.decode(avif, for: [Self.smart(200), Self.smart(40)])
        #expect(photo.serves(Self.smart(40)))
        let shared = try Thumbnailer.render(photo, Self.smart(40))
        let alone = try Thumbnailer.render(from: avif, Self.smart(40))
        #expect(shared.crop == alone.crop)
        #expect(shared.pixels == alone.pixels)
    }

    /// 2400x1600 as JPEG: 600 px needs the full decode, 150 px 1/4 and 40 px 1/8 alone; all three
    /// come from the full decode here, with their single-size windows.
    @Test func aLargeJPEGsSmartSizesAllShareItsDecode() throws {
        let scene = SceneGenerator(longSide: 2400, productPhotos: SmartCropTests.productPhotos()).scenes(repetitions: 1, seed: 19)[2].image
        let jpeg = try ImageCodecs.encode(scene, .jpeg(quality: 90))
        let photo = try Thumbnailer.decode(jpeg, for: [Self.smart(600), Self.smart(150), Self.smart(40)])
        #expect(photo.decodedWidth == 2400)
        for side in [150, 40] {
            #expect(photo.serves(Self.smart(side)), "\(side) px")
            let shared = try Thumbnailer.render(photo, Self.smart(side))
            let alone = try Thumbnailer.render(from: jpeg, Self.smart(side))
            #expect(alone.decodedWidth < 2400, "\(side) px alone decodes smaller")
            #expect(shared.crop == alone.crop, "\(side) px: the window moved")
            let ssim = SSIM.compare(shared.pixels, alone.pixels)
            #expect(ssim >= 0.995, "\(side) px: SSIM \(ssim) against the single-size thumbnail")
        }
    }

    /// A decode made for no smart crop has no small copy, and without a placeholder a large JPEG's
    /// has not the block means a smart crop of it would choose on alone: it serves none, even at a
    /// scale that would do. With a placeholder the block means are there, and the crop is its own.
    @Test func aDecodeMadeForNoSmartCropServesOneOnlyWithItsBlockMeans() throws {
        let scene = SceneGenerator(longSide: 2400, productPhotos: SmartCropTests.productPhotos()).scenes(repetitions: 1, seed: 19)[2].image
        let jpeg = try ImageCodecs.encode(scene, .jpeg(quality: 90))
        let contain = ThumbnailRequest(size: 1200, fit: .contain)  // a full-size decode
        let bare = try Thumbnailer.decode(jpeg, for: [contain], placeholder: false)
        let bareServes = bare.serves(Self.smart(600))
        #expect(bare.decodedWidth == 2400 && !bareServes)
        let placed = try Thumbnailer.decode(jpeg, for: [contain])
        let placedServes = placed.serves(Self.smart(600))
        #expect(placedServes)
        let shared = try Thumbnailer.render(placed, Self.smart(600))
        let alone = try Thumbnailer.render(from: jpeg, Self.smart(600))
        #expect(shared.crop == alone.crop)

        let small = try ImageCodecs.encode(Self.scene, .jpeg(quality: 90))
        let photo = try Thumbnailer.decode(small, for: [ThumbnailRequest(size: 200, fit: .contain)])
        let served = photo.serves(Self.smart(200))
        #expect(!served, "600 px: no block analysis, and no small copy made")
    }
}
