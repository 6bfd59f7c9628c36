@testable import AVIFCodec
import ImageCore
import Testing

@Suite("AVIF round trips")
struct AVIFRoundTripTests {
    static func decode(_ data: [UInt8]) throws -> DecodedImage {
        try AVIFCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
    }

    @Test("a photo at quality 82 comes back at its size, opaque, over 30 dB")
    func photo() throws {
        let source = Photo.make(width: 200, height: 200)
        let avif = try AVIFCodec.encode(source, quality: 82, speed: 8)
        #expect(AVIFCodec.sniff(avif))
        let decoded = try Self.decode(avif)
        #expect(decoded.pixels.width == 200 && decoded.pixels.height == 200)
        #expect(decoded.info.width == 200 && decoded.info.height == 200)
        #expect(decoded.info.format == AVIFCodec.imageFormat)
        #expect(decoded.info.orientation == .up)
        #expect(!decoded.info.isAnimated)
        #expect(!decoded.info.hasAlpha && !decoded.pixels.hasAlpha)
        #expect(decoded.scaleX == 1 && decoded.scaleY == 1)
        #expect(stride(from: 3, to: decoded.pixels.pixels.count, by: 4).allSatisfy { decoded.pixels.pixels[$0] == 255 })
        let psnr = Quality.psnr(source.pixels, decoded.pixels.pixels)
        #expect(psnr > 30, "PSNR \(psnr) dB")
        // Not lossless either: the quality setting reached the encoder.
        #expect(psnr < 60, "PSNR \(psnr) dB")

        let info = try AVIFCodec.readInfo(avif, limits: DecodeLimits())
        #expect(info == decoded.info)
    }

    @Test("the scale hint is ignored: AVIF always decodes at full size")
    func scaleHintIgnored() throws {
        let avif = try AVIFCodec.encode(Photo.make(width: 96, height: 64), quality: 82, speed: 10)
        let decoded = try AVIFCodec.decode(avif, limits: DecodeLimits(), scale: DecodeScaleHint(minimumScale: 0.25))
        #expect(decoded.pixels.width == 96 && decoded.pixels.height == 64 && decoded.scaleX == 1)
    }

    @Test("odd and tiny sizes encode and decode", arguments: [(1, 1), (2, 3), (3, 5), (65, 33), (257, 7)])
    func oddSizes(width: Int, height: Int) throws {
        // A corner of a larger photo: a whole photo squeezed into 2x3 pixels is all chroma edges,
        // which 4:2:0 cannot keep.
        let source = Photo.make(width: 300, height: 200, seed: 13).cropped(x: 20, y: 30, width: width, height: height)
        let decoded = try Self.decode(try AVIFCodec.encode(source, quality: 90, speed: 10))
        #expect(decoded.pixels.width == width && decoded.pixels.height == height)
        let psnr = Quality.psnr(source.pixels, decoded.pixels.pixels)
        #expect(psnr > 30, "PSNR \(psnr) dB")
    }

    @Test("higher quality costs bytes and buys fidelity")
    func qualityOrders() throws {
        let source = Photo.make(width: 128, height: 96, seed: 7)
        var sizes: [Int] = [], psnrs: [Double] = []
        for quality in [20, 50, 82, 95] {
            let avif = try AVIFCodec.encode(source, quality: quality, speed: 9)
            sizes.append(avif.count)
            psnrs.append(Quality.psnr(source.pixels, try Self.decode(avif).pixels.pixels))
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == sizes.count, "sizes \(sizes)")
        #expect(psnrs == psnrs.sorted(), "PSNR \(psnrs)")
    }

    @Test("quality maps to libavif 1.x's quantizers")
    func quantizerMapping() {
        #expect(AVIFEncoder.quantizer(quality: 100) == 0)
        #expect(AVIFEncoder.quantizer(quality: 82) == 11)
        #expect(AVIFEncoder.quantizer(quality: 50) == 32)
        #expect(AVIFEncoder.quantizer(quality: 1) == 62)
    }

    @Test("every speed encodes a decodable image", arguments: Array(0...10))
    func speeds(speed: Int) throws {
        // Small, so that speed 0 stays affordable.
        let source = Photo.make(width: 48, height: 40, seed: 3)
        let decoded = try Self.decode(try AVIFCodec.encode(source, quality: 82, speed: speed))
        #expect(Quality.psnr(source.pixels, decoded.pixels.pixels) > 30)
    }

    @Test("alpha round trip: hasAlpha kept, alpha and visible colour close")
    func alpha() throws {
        let source = Photo.make(width: 120, height: 80, seed: 5, alpha: true)
        let avif = try AVIFCodec.encode(source, quality: 82, speed: 8)
        let info = try AVIFCodec.readInfo(avif, limits: DecodeLimits())
        #expect(info.hasAlpha)
        let decoded = try Self.decode(avif)
        #expect(decoded.info.hasAlpha && decoded.pixels.hasAlpha)
        let alphaPSNR = Quality.psnr(source.pixels, decoded.pixels.pixels, channels: [3])
        #expect(alphaPSNR > 35, "alpha PSNR \(alphaPSNR) dB")
        // Colour where it can be seen (alpha of a quarter or more).
        let colourPSNR = Quality.psnr(source.pixels, decoded.pixels.pixels) { source.pixels[$0 * 4 + 3] >= 64 }
        #expect(colourPSNR > 30, "colour PSNR \(colourPSNR) dB")
        // Fully transparent stays fully transparent, opaque stays opaque (to within the codec's error).
        let x0 = 5, x1 = 115
        for y in [0, 40, 79] {
            #expect(decoded.pixels.pixel(x: x0, y: y).a >= 250)
            #expect(decoded.pixels.pixel(x: x1, y: y).a <= 5)
        }
    }

    @Test("an image marked hasAlpha whose pixels are all opaque is written without alpha")
    func opaqueDespiteFlag() throws {
        var source = Photo.make(width: 64, height: 64, seed: 9)
        source.hasAlpha = true
        let decoded = try Self.decode(try AVIFCodec.encode(source, quality: 82, speed: 10))
        #expect(!decoded.info.hasAlpha)
    }

    @Test("an opaque image ignores the alpha bytes it carries")
    func opaqueIgnoresAlphaBytes() throws {
        var source = Photo.make(width: 64, height: 64, seed: 11)
        for i in stride(from: 3, to: source.pixels.count, by: 4) { source.pixels[i] = 7 }  // hasAlpha false: not read
        let decoded = try Self.decode(try AVIFCodec.encode(source, quality: 82, speed: 10))
        #expect(!decoded.info.hasAlpha)
        #expect(decoded.pixels.pixel(x: 10, y: 10).a == 255)
    }

    @Test("quality and speed outside their ranges are invalid requests")
    func invalidSettings() {
        let image = Photo.make(width: 8, height: 8)
        for (quality, speed) in [(0, 6), (101, 6), (82, -1), (82, 11)] {
            let error = #expect(throws: ImageError.self) { _ = try AVIFCodec.encode(image, quality: quality, speed: speed) }
            #expect(error?.code == .invalidRequest)
        }
    }
}

