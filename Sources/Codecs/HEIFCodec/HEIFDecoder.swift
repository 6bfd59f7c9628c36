import ImageCore

/// The header-first checks and the decode, over libheif (LibHEIFFile).
enum HEIFDecoder {
    /// Everything checked before libheif decodes a sample: the top-level boxes are whole, the brands
    /// are HEIC's, every grid and overlay canvas the item data declares, the coded (ispe) and the
    /// displayed size are within `limits.maxPixels`.
    static func header(_ file: borrowing LibHEIFFile, _ canvases: HEIFDerivedCanvases,
                       limits: DecodeLimits) throws(ImageError) -> HEIFHeader {
        let coded = file.codedSize, size = file.size
        guard size.width > 0, size.height > 0 else {
            throw .corrupt("HEIC declares an empty size \(size.width)x\(size.height)")
        }
        // A grid may carry no ispe of its own (libheif then says 0x0); its canvas was checked in preflight.
        if coded.width > 0 && coded.height > 0 { try limits.check(width: coded.width, height: coded.height) }
        try limits.check(width: size.width, height: size.height)
        return HEIFHeader(width: size.width, height: size.height, codedWidth: coded.width, codedHeight: coded.height,
                          canvas: canvases.largest, hasAlpha: file.hasAlpha, bitDepth: file.bitDepth)
    }

    /// Our own reading of the file, before libheif's: truncation, brands, derived canvases.
    static func preflight(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> HEIFDerivedCanvases {
        let top = try ISOBMFFTopLevel(data, format: HEIFDerivedCanvases.format)
        guard SniffedFormat.isHEIC(data) else {
            let named = top.brands.map { "'\($0)'" }.joined(separator: ", ")
            throw .unsupported("an ISO-BMFF file whose brands (\(named)) are not HEIC's")
        }
        let canvases = try HEIFDerivedCanvases(data, top)
        for canvas in canvases.canvases {
            do {
                try limits.check(width: canvas.width, height: canvas.height)
            } catch {
                throw ImageError(error.code, "HEIC \(canvas.itemType) canvas: \(error.message)")
            }
        }
        return canvases
    }

    static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        let canvases = try preflight(data, limits: limits)
        return try withFile(data, limits: limits) { file throws(ImageError) in try header(file, canvases, limits: limits).info }
    }

    static func decode(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> DecodedImage {
        let canvases = try preflight(data, limits: limits)
        return try withFile(data, limits: limits) { file throws(ImageError) in
            let header = try header(file, canvases, limits: limits)
            try limits.check(decodeBytes: header.decodeBytes, what: "\(header.width)x\(header.height) HEIC")
            let rgba = try file.decodeRGBA(expecting: (header.width, header.height))
            return DecodedImage(info: header.info, pixels: PixelBuffer(width: header.width, height: header.height, hasAlpha: header.hasAlpha, pixels: rgba),
                                color: file.embeddedColor)
        }
    }

    static func embeddedColor(_ data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        // No pixel limit matters here: nothing is decoded, and libheif's own limits hold while parsing.
        let unlimited = DecodeLimits(maxPixels: Int.max, maxDecodeBytes: Int.max)
        _ = try preflight(data, limits: unlimited)
        return try withFile(data, limits: unlimited) { file throws(ImageError) in file.embeddedColor }
    }

    /// libheif reads `data` in place: the file (context and handle) lives only inside `body`.
    private static func withFile<T>(_ data: [UInt8], limits: DecodeLimits,
                                    _ body: (borrowing LibHEIFFile) throws(ImageError) -> T) throws(ImageError) -> T {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            let file = try LibHEIFFile(buffer, limits: limits)
            return try body(file)
        }
    }
}

/// What the boxes say once libheif has parsed them, before any HEVC data is decoded.
struct HEIFHeader {
    /// Displayed size (irot, imir and clap applied, as libheif decodes).
    let width: Int
    let height: Int
    /// ispe: the size the codec decodes, before transforms.
    let codedWidth: Int
    let codedHeight: Int
    /// The largest grid or overlay canvas the file declares (its own data; libheif allocates it).
    let canvas: HEIFDerivedCanvases.Canvas?
    let hasAlpha: Bool
    let bitDepth: Int

    /// libheif applies the orientation while decoding: the pixels come back upright.
    var info: ImageInfo {
        ImageInfo(format: .heic, width: width, height: height, hasAlpha: hasAlpha, orientation: .up, isAnimated: false)
    }

    /// The working memory of a decode, at its peak: libheif holds the YCbCr planes twice (the decoded
    /// image and its rotated or grid-assembled copy) and then its RGBA image beside them, and thumbd's
    /// RGBA copy comes while libheif's RGBA is alive. Planes are counted 4:4:4 (libheif 1.15 does not
    /// say the chroma format before decoding), two bytes a sample past 8 bits, plus alpha. The largest
    /// of the coded size, the displayed size and any grid canvas counts. Only called once those sizes
    /// have passed `DecodeLimits.check(width:height:)`, so nothing overflows.
    var decodeBytes: Int {
        let pixels = max(codedWidth * codedHeight, width * height, (canvas?.width ?? 0) * (canvas?.height ?? 0))
        let sampleBytes = bitDepth > 8 ? 2 : 1
        let planes = pixels * (hasAlpha ? 4 : 3) * sampleBytes
        let rgba = pixels * PixelBuffer.bytesPerPixel
        return max(2 * planes + rgba, 2 * rgba)
    }
}
