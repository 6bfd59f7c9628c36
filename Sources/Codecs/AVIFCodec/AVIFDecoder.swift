import CAVIF
import ImageCore

/// Parsing and pixel decoding through libavif's avifDecoder (dav1d for AV1 where libavif has it).
enum AVIFDecoder {
    /// libavif's own ceilings (AVIF_DEFAULT_IMAGE_SIZE_LIMIT, AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT),
    /// kept while parsing: beyond them libavif's 32-bit arithmetic is not safe. `DecodeLimits` is
    /// checked on top of them, from the parsed header.
    static let libavifMaxPixels: UInt32 = 16384 * 16384
    static let libavifMaxDimension: UInt32 = 32768
    /// Frames an image sequence may list. Only the first frame is ever decoded, but libavif builds
    /// its sample table for all of them while parsing, a few dozen bytes a frame, and a file of a
    /// few hundred bytes can list any number (AVIF_DEFAULT_IMAGE_COUNT_LIMIT would allow 2.6
    /// million). 10,000 frames is over five minutes at 30 fps; more is `pixel_limit_exceeded`.
    static let frameCountLimit: UInt32 = 10_000

    static var libavifVersion: String { String(cString: avifVersion()) }

    // MARK: Entry points

    static func readInfo(_ data: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        let container = try AVIFContainer(data)
        let decoder = try LibAVIFDecoder(data)
        let header = try decoder.parse(container)
        try limits.check(width: header.width, height: header.height)
        return header.info
    }

    static func decode(_ data: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) throws(ImageError) -> DecodedImage {
        let container = try AVIFContainer(data)
        let decoder = try LibAVIFDecoder(data)
        let header = try decoder.parse(container)
        try limits.check(width: header.width, height: header.height)
        try limits.check(decodeBytes: header.decodeBytes, what: "\(header.width)x\(header.height) AVIF")

        let image = try decoder.decodeFirstFrame(header)
        let rgba = try convertToRGBA(image, header: header)
        return DecodedImage(info: header.info, pixels: PixelBuffer(width: header.width, height: header.height, hasAlpha: header.hasAlpha, pixels: rgba),
                            color: embeddedColor(image.pointee))
    }

    /// The ICC profile of a `colr` box when there is one, else what the CICP values (the nclx box,
    /// or the AV1 sequence header once decoded) say: BT.709 primaries with the sRGB transfer are
    /// sRGB. Other CICP (Display P3 as 12/13, BT.2020, PQ, HLG) has no EmbeddedColor case yet, so
    /// it is reported as unspecified and the samples are taken as sRGB.
    static func embeddedColor(_ image: avifImage) -> EmbeddedColor {
        if let bytes = image.icc.data, image.icc.size > 0 {
            return .iccProfile([UInt8](UnsafeBufferPointer(start: bytes, count: image.icc.size)))
        }
        if image.colorPrimaries == avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709),
           image.transferCharacteristics == avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB) {
            return .sRGB
        }
        return .unspecified
    }

    static func iccProfile(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let container = try? AVIFContainer(data), let decoder = try? LibAVIFDecoder(data),
              (try? decoder.parse(container)) != nil, let image = decoder.pointer.pointee.image else { return nil }
        let icc = image.pointee.icc
        guard let bytes = icc.data, icc.size > 0 else { return nil }
        return [UInt8](UnsafeBufferPointer(start: bytes, count: icc.size))
    }

    // MARK: YUV to RGBA

    /// 8-bit RGBA, not premultiplied, whatever the source's depth (libavif rescales 10 and 12 bits)
    /// and whether or not its alpha was stored premultiplied.
    private static func convertToRGBA(_ image: UnsafeMutablePointer<avifImage>, header: AVIFHeader) throws(ImageError) -> [UInt8] {
        let rowBytes = header.width * PixelBuffer.bytesPerPixel
        let outputBytes = rowBytes * header.height
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = AVIF_FALSE
        rgb.alphaPremultiplied = AVIF_FALSE
        rgb.rowBytes = UInt32(rowBytes)
        // libavif 0.11.1 writes every byte (alpha 255 when there is no alpha plane); the buffer is
        // made opaque first all the same, so that no path of its conversion can leave bytes
        // undefined. A memset, beside an AV1 decode.
        var rgba = [UInt8](repeating: 0xFF, count: outputBytes)
        let result = rgba.withUnsafeMutableBufferPointer { buffer in
            rgb.pixels = buffer.baseAddress
            defer { rgb.pixels = nil }
            return avifImageYUVToRGB(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            throw .avif(result, "", "converting the \(header.width)x\(header.height) \(header.depth)-bit \(header.chromaName) image to RGBA")
        }
        return rgba
    }
}

/// What the container says once libavif has parsed it, before any AV1 data is decoded.
struct AVIFHeader {
    let width: Int
    let height: Int
    let depth: Int
    let yuvFormat: avifPixelFormat
    let hasAlpha: Bool
    let frameCount: Int
    let orientation: Orientation

    var isAnimated: Bool { frameCount > 1 }

    var info: ImageInfo {
        ImageInfo(format: AVIFCodec.imageFormat, width: width, height: height, hasAlpha: hasAlpha,
                  orientation: orientation, isAnimated: isAnimated)
    }

    var chromaName: String {
        switch yuvFormat {
        case AVIF_PIXEL_FORMAT_YUV444: "4:4:4"
        case AVIF_PIXEL_FORMAT_YUV422: "4:2:2"
        case AVIF_PIXEL_FORMAT_YUV420: "4:2:0"
        case AVIF_PIXEL_FORMAT_YUV400: "monochrome"
        default: "unknown-format"
        }
    }

    /// The working memory of a decode: the RGBA output, plus the YUV and alpha planes twice (the AV1
    /// decoder's frame, and libavif's own copy when it assembles a grid or when the frame and the
    /// container's size differ). Samples over 8 bits take two bytes. Only called once the size has
    /// passed `DecodeLimits.check(width:height:)` and libavif's dimension limit, so nothing overflows.
    var decodeBytes: Int {
        let pixels = width * height
        let sampleBytes = depth > 8 ? 2 : 1
        var planeSamples = pixels
        var info = avifPixelFormatInfo()
        avifGetPixelFormatInfo(yuvFormat, &info)
        if info.monochrome == AVIF_FALSE {
            let chromaWidth = (width + (1 << info.chromaShiftX) - 1) >> info.chromaShiftX
            let chromaHeight = (height + (1 << info.chromaShiftY) - 1) >> info.chromaShiftY
            planeSamples += 2 * chromaWidth * chromaHeight
        }
        if hasAlpha { planeSamples += pixels }
        return pixels * PixelBuffer.bytesPerPixel + 2 * planeSamples * sampleBytes
    }
}

/// One avifDecoder reading bytes that outlive it (the caller's buffer). Noncopyable, so that it
/// is destroyed exactly once.
struct LibAVIFDecoder: ~Copyable {
    let pointer: UnsafeMutablePointer<avifDecoder>

    init(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        // AVIFContainer has refused empty data already; an empty buffer has no base address.
        guard let base = data.baseAddress, !data.isEmpty else { throw .corrupt("the AVIF file is empty") }
        guard let decoder = avifDecoderCreate() else {
            throw ImageError(.pixelLimitExceeded, "libavif could not allocate a decoder")
        }
        // thumbd decodes one image per core on its own pool: libavif and dav1d must not start threads.
        decoder.pointee.maxThreads = 1
        decoder.pointee.codecChoice = AVIF_CODEC_CHOICE_AUTO  // dav1d, then libgav1, then aom
        decoder.pointee.imageSizeLimit = AVIFDecoder.libavifMaxPixels
        decoder.pointee.imageDimensionLimit = AVIFDecoder.libavifMaxDimension
        decoder.pointee.imageCountLimit = AVIFDecoder.frameCountLimit
        // Strictness guards against encoders' slips, not against hostile data (sizes and offsets are
        // checked whatever these flags say): libheif <= 1.11 wrote no pixi, cavif's avif-serialize
        // <= 0.7.3 no ispe on alpha items, and a clap box is never applied here. Browsers (Chromium
        // sets AVIF_STRICT_DISABLED) show such files, so thumbd reads them too.
        decoder.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
        decoder.pointee.ignoreExif = AVIF_TRUE
        decoder.pointee.ignoreXMP = AVIF_TRUE
        decoder.pointee.allowProgressive = AVIF_FALSE
        decoder.pointee.allowIncremental = AVIF_FALSE
        let result = avifDecoderSetIOMemory(decoder, base, data.count)
        guard result == AVIF_RESULT_OK else {
            let error = ImageError.avif(result, diagnosticText(decoder.pointee.diag), "setting up the decoder")
            avifDecoderDestroy(decoder)
            throw error
        }
        self.pointer = decoder
    }

    deinit { avifDecoderDestroy(pointer) }

    /// Parses the boxes (no AV1 data is decoded) and returns the header.
    func parse(_ container: AVIFContainer) throws(ImageError) -> AVIFHeader {
        let result = avifDecoderParse(pointer)
        // After a failed parse, libavif 0.11.1 leaves `image` NULL: nothing of it may be read.
        guard result == AVIF_RESULT_OK, let image = pointer.pointee.image else {
            throw .avif(result, diagnosticText(pointer.pointee.diag), "reading the \(container.majorBrand) container")
        }
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        guard width > 0, height > 0, width <= Int(AVIFDecoder.libavifMaxDimension), height <= Int(AVIFDecoder.libavifMaxDimension) else {
            throw .corrupt("AVIF declares an impossible size \(width)x\(height)")
        }
        let depth = Int(image.pointee.depth)
        guard [8, 10, 12].contains(depth) else {
            throw .unsupported("AVIF with \(depth)-bit samples is not supported (8, 10 and 12 are)")
        }
        let flags = image.pointee.transformFlags
        let rotation = flags & AVIF_TRANSFORM_IROT.rawValue != 0 ? image.pointee.irot.angle : nil
        // libavif 0.11 names imir's field `mode`; libavif 1.0 renamed it `axis` (same meaning).
        let mirror = flags & AVIF_TRANSFORM_IMIR.rawValue != 0 ? image.pointee.imir.mode : nil
        return AVIFHeader(
            width: width, height: height, depth: depth, yuvFormat: image.pointee.yuvFormat,
            hasAlpha: pointer.pointee.alphaPresent != AVIF_FALSE,
            frameCount: max(1, Int(pointer.pointee.imageCount)),
            orientation: AVIFOrientation.orientation(rotation: rotation, mirror: mirror))
    }

    /// Decodes the first frame (the still image, or frame 0 of a sequence) into libavif's image,
    /// valid until this decoder is destroyed.
    func decodeFirstFrame(_ header: AVIFHeader) throws(ImageError) -> UnsafeMutablePointer<avifImage> {
        // The AV1 decoder (dav1d) refuses any frame larger than the container declared, so a
        // small ispe over a huge AV1 frame cannot allocate past the limits checked above. libavif
        // 0.11.1 hands this value to dav1d when it opens it, in the first avifDecoderNextImage.
        pointer.pointee.imageSizeLimit = UInt32(header.width * header.height)
        let result = avifDecoderNextImage(pointer)
        guard result == AVIF_RESULT_OK, let image = pointer.pointee.image else {
            throw .avif(result, diagnosticText(pointer.pointee.diag), "decoding the \(header.width)x\(header.height) image")
        }
        guard Int(image.pointee.width) == header.width, Int(image.pointee.height) == header.height,
              Int(image.pointee.depth) == header.depth else {
            throw .corrupt("the AV1 frame (\(image.pointee.width)x\(image.pointee.height), \(image.pointee.depth)-bit) differs from the AVIF header (\(header.width)x\(header.height), \(header.depth)-bit)")
        }
        guard image.pointee.yuvPlanes.0 != nil else {
            throw .corrupt("libavif decoded no pixels for the \(header.width)x\(header.height) image")
        }
        if header.hasAlpha, image.pointee.alphaPlane == nil {
            throw .corrupt("the AVIF declares alpha but its alpha image did not decode")
        }
        return image
    }
}
