import CPNGBridge
import ImageCore

/// PNG through libpng's full API (see CPNGBridge): every colour type and bit depth, palettes with
/// tRNS, Adam7 interlacing. Pixels come out as stored (no gamma correction); 16-bit samples keep
/// their high byte. Orientation comes from an eXIf chunk placed before the image data.
public enum PNGCodec {
    /// Header facts: stored size, whether the file has alpha (an alpha channel or tRNS),
    /// orientation from eXIf, and whether it is an APNG (only its default image is ever decoded).
    public static func readInfo(_ data: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(ImageError) -> ImageInfo {
        try checkDeclaredSize(data, limits)
        return try LibPNGDecoder.withDecoder(data, memoryLimit: DecodeLimits.defaultMaxDecodeBytes) { decoder throws(ImageError) in
            imageInfo(try decoder.readHeader(), data)
        }
    }

    /// What the file says of its colours (iCCP, sRGB, gAMA/cHRM), from the chunks before the image data.
    public static func embeddedColor(in data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try LibPNGDecoder.withDecoder(data, memoryLimit: DecodeLimits.defaultMaxDecodeBytes) { decoder throws(ImageError) in
            try decoder.readHeader().color
        }
    }

    /// Decodes to RGBA8 after checking `limits` against the header, before any pixel memory exists.
    ///
    /// When `scale.minimumScale <= 0.5` and the image is not interlaced, rows are streamed through a
    /// k x k box filter (k = floor(1 / minimumScale)), so peak memory is the reduced image plus a
    /// few rows; the result is ceil(width / k) x ceil(height / k), never below `minimumScale` of the
    /// original. Otherwise the image is decoded at full size. `info` always describes the file
    /// (stored size), the pixel buffer says what was decoded.
    public static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        var stats = DecodeStats()
        return try decode(data, limits: limits, scale: scale, stats: &stats)
    }

    /// What a decode used, for tests: filled in as far as the decode got, even when it throws.
    struct DecodeStats {
        /// The most memory libpng and zlib held at once.
        var libpngPeakBytes = 0
        /// Bytes of pixel memory allocated by the codec (output image, row and sum buffers).
        var pixelBytes = 0
    }

    /// `libpngMemoryLimit` overrides the cap on libpng's own allocations (tests only).
    static func decode(_ data: [UInt8], limits: DecodeLimits, scale: DecodeScaleHint,
                       stats: inout DecodeStats, libpngMemoryLimit: Int? = nil) throws(ImageError) -> DecodedImage {
        try checkDeclaredSize(data, limits)
        // libpng's own allocations (rows, zlib, chunks) are capped by the decode budget too.
        return try LibPNGDecoder.withDecoder(data, memoryLimit: libpngMemoryLimit ?? limits.maxDecodeBytes) { decoder throws(ImageError) in
            defer { stats.libpngPeakBytes = decoder.peakLibPNGMemory }
            let header = try decoder.readHeader()
            let info = imageInfo(header, data)
            let width = header.width, height = header.height
            try limits.check(width: width, height: height)

            let factor = header.interlaced ? 1 : reductionFactor(scale, width: width, height: height)
            // libpng keeps two rows (current and previous) at up to 8 bytes a pixel, plus about
            // 45 KiB of its own state and zlib's (the bridge enforces the same budget on it).
            let libpngWorking = 2 * (width * 8 + 64) + (64 << 10)
            let working = factor > 1
                ? BoxReducer.workingBytes(width: width, height: height, factor: factor) + width * 4
                : width * height * 4
            try limits.check(decodeBytes: working + libpngWorking, what: "a \(width)x\(height) PNG")

            let rowBytes = try decoder.startRGBA8()
            stats.pixelBytes = working
            let pixels: PixelBuffer
            if factor > 1 {
                pixels = try decodeReduced(decoder, width: width, height: height, rowBytes: rowBytes,
                                           factor: factor, hasAlpha: header.hasAlpha)
            } else {
                var bytes = [UInt8](repeating: 0, count: width * height * 4)
                let status: ImageError? = bytes.withUnsafeMutableBufferPointer { buffer in
                    do throws(ImageError) {
                        try decoder.readImage(into: buffer, stride: rowBytes, height: height)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let status { throw status }
                pixels = PixelBuffer(width: width, height: height, hasAlpha: header.hasAlpha, pixels: bytes)
            }
            try decoder.finish()
            return DecodedImage(info: info, pixels: pixels, scale: 1 / Double(factor), color: header.color)
        }
    }

    /// IHDR is always the first chunk. Its size is checked before libpng reads further, so a file
    /// that declares a huge image and holds nothing else is refused for its size, not its lack of data.
    static func checkDeclaredSize(_ data: [UInt8], _ limits: DecodeLimits) throws(ImageError) {
        guard data.count >= 24, data[12..<16].elementsEqual("IHDR".utf8) else { return }
        func u32(_ at: Int) -> Int { data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = u32(16), height = u32(20)
        if width > 0, height > 0 { try limits.check(width: width, height: height) }
    }

    /// 8-bit RGBA when `image.hasAlpha`, else 8-bit RGB; default compression; no metadata chunks.
    public static func encode(_ image: PixelBuffer) throws(ImageError) -> [UInt8] {
        guard image.width <= Int(Int32.max), image.height <= Int(Int32.max),
              image.pixels.count == image.width * image.height * PixelBuffer.bytesPerPixel else {
            throw ImageError(.encodeFailed, "\(image.width)x\(image.height) cannot be written as PNG")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { text in
                thumbd_png_encode_rgba8(pixels.baseAddress, UInt32(image.width), UInt32(image.height), image.rowBytes,
                                        image.hasAlpha ? 1 : 0, &output, &length, text.baseAddress, text.count)
            }
        }
        defer { thumbd_png_free(output) }
        guard status == THUMBD_PNG_OK, let output else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageError(.encodeFailed, "PNG encoding failed: \(reason.isEmpty ? "unknown libpng error" : reason)")
        }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }

    /// k = floor(1 / minimumScale) when the hint allows at least halving, else 1; never more than
    /// the larger side (so a hint of 0 gives a 1-pixel-wide result, not a division by zero).
    static func reductionFactor(_ scale: DecodeScaleHint, width: Int, height: Int) -> Int {
        let s = scale.minimumScale
        guard s <= 0.5 else { return 1 }
        let largest = max(width, height)
        guard s > 0 else { return max(1, largest) }
        let k = (1 / s).rounded(.down)
        return k >= Double(largest) ? max(1, largest) : max(1, Int(k))
    }

    private static func decodeReduced(_ decoder: LibPNGDecoder, width: Int, height: Int, rowBytes: Int,
                                      factor: Int, hasAlpha: Bool) throws(ImageError) -> PixelBuffer {
        var reducer = BoxReducer(width: width, height: height, factor: factor, hasAlpha: hasAlpha)
        var row = [UInt8](repeating: 0, count: rowBytes)
        var failure: ImageError?
        row.withUnsafeMutableBufferPointer { buffer in
            for _ in 0..<height {
                do throws(ImageError) {
                    try decoder.readRows(into: buffer, stride: rowBytes, count: 1)
                } catch {
                    failure = error
                    return
                }
                reducer.add(row: UnsafeBufferPointer(buffer))
            }
        }
        if let failure { throw failure }
        precondition(reducer.isComplete, "BoxReducer did not see every row")
        return PixelBuffer(width: reducer.outputWidth, height: reducer.outputHeight, hasAlpha: hasAlpha,
                           pixels: reducer.output)
    }

    private static func imageInfo(_ header: LibPNGDecoder.Header, _ data: [UInt8]) -> ImageInfo {
        let orientation = header.exif.map { ExifOrientation.read(tiff: $0) } ?? .up
        return ImageInfo(format: .png, width: header.width, height: header.height, hasAlpha: header.hasAlpha,
                         orientation: orientation, isAnimated: PNGChunks.hasAnimationControl(data))
    }
}

/// A bounds-checked walk over chunk headers (libpng skips chunks it does not know, such as acTL).
enum PNGChunks {
    /// True when an acTL chunk (APNG) comes before the first IDAT.
    static func hasAnimationControl(_ data: [UInt8]) -> Bool {
        var offset = 8  // signature
        while offset + 8 <= data.count {
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let type = (data[offset + 4], data[offset + 5], data[offset + 6], data[offset + 7])
            if type == (0x49, 0x44, 0x41, 0x54) { return false }  // IDAT
            if type == (0x61, 0x63, 0x54, 0x4C) { return true }   // acTL
            guard length <= 0x7FFF_FFFF else { return false }
            offset += 12 + length
        }
        return false
    }
}
