import CWebP
import ImageCore

/// Pixel decoding: still images straight into a Swift buffer, animations through WebPAnimDecoder.
enum WebPDecoder {
    static func decode(_ data: UnsafeBufferPointer<UInt8>, limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        let header = try WebPHeader(data)
        try limits.check(width: header.width, height: header.height)
        var decoded = header.isAnimated
            ? try decodeFirstFrame(data, header: header, limits: limits)
            : try decodeStill(data, header: header, limits: limits, scale: scale)
        decoded.color = header.container.iccProfile.map(EmbeddedColor.iccProfile) ?? .unspecified
        return decoded
    }

    /// The size libwebp is asked for: at least `minimumScale` of the stored size in each dimension.
    static func scaledSize(width: Int, height: Int, scale: DecodeScaleHint) -> (width: Int, height: Int) {
        guard scale.minimumScale < 1 else { return (width, height) }
        func scaled(_ side: Int) -> Int {
            min(side, max(1, Int((Double(side) * scale.minimumScale).rounded(.up))))
        }
        return (scaled(width), scaled(height))
    }

    // MARK: Still images

    private static func decodeStill(_ data: UnsafeBufferPointer<UInt8>, header: WebPHeader, limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        let out = scaledSize(width: header.width, height: header.height, scale: scale)
        let outputBytes = try bytes(out.width, out.height, 4)
        // Beside the output, lossless decoding keeps the whole image as 32-bit ARGB, and lossy
        // decoding with alpha keeps the alpha plane at full size.
        let pixels = header.width * header.height  // checked against maxPixels above
        let working = header.isLossless ? pixels * 4 : (header.hasAlpha ? pixels : 0)
        try limits.check(decodeBytes: outputBytes + working, what: "\(header.width)x\(header.height) WebP")

        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .unsupported("libwebp decoder ABI mismatch")
        }
        config.options.use_threads = 0
        if out.width != header.width || out.height != header.height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(out.width)
            config.options.scaled_height = Int32(out.height)
        }

        var status = VP8_STATUS_OK
        let rgba = [UInt8](unsafeUninitializedCapacity: outputBytes) { buffer, initialized in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.width = Int32(out.width)
            config.output.height = Int32(out.height)
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(out.width * 4)
            config.output.u.RGBA.size = outputBytes
            status = WebPDecode(data.baseAddress, data.count, &config)
            WebPFreeDecBuffer(&config.output)  // frees nothing of ours: the memory is external
            // libwebp wrote every row only when it succeeded; otherwise the buffer is dropped empty.
            initialized = status == VP8_STATUS_OK ? outputBytes : 0
        }
        guard status == VP8_STATUS_OK else {
            throw .webp(status, "decoding \(header.width)x\(header.height) \(header.isLossless ? "lossless" : "lossy") image")
        }
        return finish(header: header, width: out.width, height: out.height, rgba: rgba)
    }

    // MARK: Animations

    /// The first frame composited on the canvas (transparent where the frame does not reach).
    private static func decodeFirstFrame(_ data: UnsafeBufferPointer<UInt8>, header: WebPHeader, limits: DecodeLimits) throws(ImageError) -> DecodedImage {
        let canvasBytes = try bytes(header.width, header.height, 4)
        // WebPAnimDecoder holds the canvas and a copy of the previous one; one frame is decoded
        // beside them (as 32-bit ARGB when lossless); then we copy the canvas out.
        try limits.check(decodeBytes: canvasBytes * 4, what: "\(header.width)x\(header.height) animated WebP")

        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw .unsupported("libwebp demux ABI mismatch")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0

        var webpData = WebPData(bytes: data.baseAddress, size: data.count)
        guard let decoder = WebPAnimDecoderNew(&webpData, &options) else {
            throw .corrupt("WebP animation is invalid")
        }
        defer { WebPAnimDecoderDelete(decoder) }

        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw .corrupt("WebP animation is invalid")
        }
        guard Int(info.canvas_width) == header.width, Int(info.canvas_height) == header.height else {
            throw .corrupt("WebP animation canvas \(info.canvas_width)x\(info.canvas_height) differs from its header \(header.width)x\(header.height)")
        }
        var frame: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else {
            throw .corrupt("the first frame of the WebP animation does not decode")
        }
        let rgba = [UInt8](UnsafeBufferPointer(start: frame, count: canvasBytes))
        return finish(header: header, width: header.width, height: header.height, rgba: rgba)
    }

    // MARK: Helpers

    private static func finish(header: WebPHeader, width: Int, height: Int, rgba: [UInt8]) -> DecodedImage {
        // The alpha flag in the header is a hint: a lossless bitstream or an animation canvas (which
        // starts transparent) can hold transparent pixels without it. Lossy pixels without an ALPH
        // chunk are always opaque. A false hasAlpha must mean opaque, so check the pixels.
        var hasAlpha = header.hasAlpha
        if !hasAlpha && (header.isLossless || header.isAnimated || header.format == 0) {
            hasAlpha = !isOpaque(rgba)
        }
        var info = header.info
        info.hasAlpha = hasAlpha
        return DecodedImage(info: info, pixels: PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: rgba))
    }

    private static func isOpaque(_ rgba: [UInt8]) -> Bool {
        rgba.withUnsafeBufferPointer { buffer in
            var all: UInt8 = 0xFF
            for index in stride(from: 3, to: buffer.count, by: 4) { all &= buffer[index] }
            return all == 0xFF
        }
    }

    /// width * height * bytesPerPixel, refused as over the limit when it does not fit an Int.
    private static func bytes(_ width: Int, _ height: Int, _ bytesPerPixel: Int) throws(ImageError) -> Int {
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (total, o2) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
        guard !o1, !o2 else {
            throw ImageError(.pixelLimitExceeded, "\(width)x\(height) is too large to address")
        }
        return total
    }
}
