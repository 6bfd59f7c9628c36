import CAVIF
import ImageCore

/// Still AVIF output: 8-bit 4:2:0 YUV (full range, BT.601 matrix, sRGB primaries and transfer
/// signalled in an nclx colr box), an alpha item only when the image has alpha, no metadata.
enum AVIFEncoder {
    static let speedRange = Int(AVIF_SPEED_SLOWEST)...Int(AVIF_SPEED_FASTEST)
    /// AV1 allows 65,536 pixels a side.
    static let maxDimension = 65_536

    /// thumbd's quality 1...100 as an AV1 quantizer 0 (best) ... 63 (worst): libavif 1.x's own
    /// mapping for its `quality` field, `((100 - quality) * 63 + 50) / 100`, so that moving to
    /// libavif >= 1.0 and setting `encoder->quality` makes the same files. Quality 82 is quantizer
    /// 11, 50 is 32, 1 is 62, 100 is 0 (lossless only with 4:4:4, which is not used here).
    static func quantizer(quality: Int) -> Int32 {
        Int32(((100 - quality) * 63 + 50) / 100)
    }

    /// `orientation` is written as irot/imir (tests write oriented files with it; thumbnails are
    /// upright).
    static func encode(_ image: PixelBuffer, quality: Int, speed: Int, orientation: Orientation = .up) throws(ImageError) -> [UInt8] {
        guard EncodeSettings.qualityRange.contains(quality) else {
            throw ImageError(.invalidRequest, "AVIF quality \(quality) is outside \(EncodeSettings.qualityRange)")
        }
        guard speedRange.contains(speed) else {
            throw ImageError(.invalidRequest, "AVIF speed \(speed) is outside \(speedRange)")
        }
        guard image.width <= maxDimension, image.height <= maxDimension else {
            throw ImageError(.encodeFailed, "\(image.width)x\(image.height) is larger than AVIF allows (\(maxDimension) pixels a side)")
        }
        let what = "\(image.width)x\(image.height)"

        guard let yuv = avifImageCreate(UInt32(image.width), UInt32(image.height), 8, AVIF_PIXEL_FORMAT_YUV420) else {
            throw ImageError(.encodeFailed, "libavif could not allocate a \(what) image")
        }
        defer { avifImageDestroy(yuv) }
        yuv.pointee.yuvRange = AVIF_RANGE_FULL
        yuv.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        yuv.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        yuv.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_BT601)
        let transform = AVIFOrientation.transform(for: orientation)
        if let rotation = transform.rotation {
            yuv.pointee.transformFlags |= AVIF_TRANSFORM_IROT.rawValue
            yuv.pointee.irot.angle = rotation
        }
        if let mirror = transform.mirror {
            yuv.pointee.transformFlags |= AVIF_TRANSFORM_IMIR.rawValue
            yuv.pointee.imir.mode = mirror  // `axis` from libavif 1.0
        }

        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, yuv)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        // An opaque image gets no alpha plane at all (its alpha bytes are not read).
        rgb.ignoreAlpha = image.hasAlpha ? AVIF_FALSE : AVIF_TRUE
        rgb.alphaPremultiplied = AVIF_FALSE
        rgb.rowBytes = UInt32(image.rowBytes)
        let converted = image.pixels.withUnsafeBufferPointer { pixels in
            // libavif only reads through this pointer (avifImageRGBToYUV takes a const avifRGBImage).
            rgb.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress)
            defer { rgb.pixels = nil }
            return avifImageRGBToYUV(yuv, &rgb)
        }
        guard converted == AVIF_RESULT_OK else {
            throw .avifEncode(converted, "", "\(what) (RGBA to YUV)")
        }

        guard let encoder = avifEncoderCreate() else {
            throw ImageError(.encodeFailed, "libavif could not allocate an encoder")
        }
        defer { avifEncoderDestroy(encoder) }
        // aom where libavif has it: libavif's speed 0...10 is tuned on aom's cpu-used (see
        // AVIFCodec.encode); rav1e and SVT-AV1 read the same numbers differently.
        encoder.pointee.codecChoice = avifCodecName(AVIF_CODEC_CHOICE_AOM, AVIF_CODEC_FLAG_CAN_ENCODE.rawValue) != nil
            ? AVIF_CODEC_CHOICE_AOM : AVIF_CODEC_CHOICE_AUTO
        // thumbd encodes one image per core on its own pool: no encoder threads.
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(speed)
        let q = quantizer(quality: quality)
        encoder.pointee.minQuantizer = q
        encoder.pointee.maxQuantizer = q
        encoder.pointee.minQuantizerAlpha = q
        encoder.pointee.maxQuantizerAlpha = q

        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let written = avifEncoderWrite(encoder, yuv, &output)
        guard written == AVIF_RESULT_OK else {
            throw .avifEncode(written, diagnosticText(encoder.pointee.diag), what)
        }
        guard let bytes = output.data, output.size > 0 else {
            throw ImageError(.encodeFailed, "libavif wrote nothing for \(what)")
        }
        return [UInt8](UnsafeBufferPointer(start: bytes, count: output.size))
    }
}
