import CTurboJPEG
import ImageCore

/// JPEG decoding through the TurboJPEG API, at the smallest DCT scale that still satisfies the
/// caller's `DecodeScaleHint` (libjpeg-turbo scales by M/8 inside the IDCT, so a 1/8 decode does
/// about 1/64 of the colour conversion and upsampling work).
enum JPEGDecoder {
    static func structure(of data: [UInt8]) throws(ImageError) -> JPEGStructure {
        let structure = data.withUnsafeBufferPointer { JPEGStructure($0) }
        guard structure.width > 0, structure.height > 0 || structure.truncated else {
            throw .corrupt("JPEG has no frame header (SOF) with a size")
        }
        guard structure.precision == 8 else {
            throw .unsupported("\(structure.precision)-bit JPEG is not supported (8-bit only)")
        }
        switch structure.coding {
        case .lossless: throw .unsupported("lossless JPEG (SOF3) is not supported")
        case .hierarchical: throw .unsupported("hierarchical JPEG is not supported")
        default: break
        }
        guard [1, 3, 4].contains(structure.components.count) else {
            throw .unsupported("JPEG with \(structure.components.count) colour components is not supported")
        }
        if structure.truncated || !structure.endsWithEOI {
            throw .truncated("JPEG data ends before its end-of-image marker (truncated file)")
        }
        return structure
    }

    static func readInfo(_ data: [UInt8]) throws(ImageError) -> ImageInfo {
        let s = try structure(of: data)
        return ImageInfo(format: .jpeg, width: s.width, height: s.height, hasAlpha: false, orientation: s.orientation)
    }

    static func decode(_ data: [UInt8], limits: DecodeLimits, scale hint: DecodeScaleHint) throws(ImageError) -> DecodedImage {
        let s = try structure(of: data)
        try limits.check(width: s.width, height: s.height)

        let session = try TurboJPEGSession(decompress: ())
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let headerStatus = data.withUnsafeBufferPointer { bytes in
            tjDecompressHeader3(session.handle, bytes.baseAddress, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        }
        guard headerStatus == 0 else { throw session.error(defaultCode: .corruptImage) }
        try limits.check(width: Int(width), height: Int(height))

        let factor = scalingFactor(for: hint)
        let outWidth = scaled(Int(width), factor), outHeight = scaled(Int(height), factor)
        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let outputBytes = outWidth * outHeight * 4
        let working = outputBytes + (s.buffersAllCoefficients ? s.coefficientBytes : 0)
        try limits.check(decodeBytes: working, what: "this \(Int(width))x\(Int(height)) JPEG")

        // CMYK decodes into 4 bytes a pixel as well, then is converted to RGBA in place.
        var pixels = [UInt8](repeating: 0, count: outputBytes)
        let pixelFormat = isCMYK ? TJPF_CMYK : TJPF_RGBA
        let status = data.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { destination in
                tjDecompress2(session.handle, source.baseAddress, UInt(source.count), destination.baseAddress,
                              Int32(outWidth), 0, Int32(outHeight), Int32(pixelFormat.rawValue), 0)
            }
        }
        if status != 0 {
            let error = session.error(defaultCode: .corruptImage)
            // A warning still produced a full image (libjpeg recovers from damaged entropy data the way
            // every browser does); a truncated file was already refused by the marker walk above.
            guard session.lastCallOnlyWarned else { throw error }
            if error.message.contains("Premature end") { throw .truncated("JPEG data ends early (truncated file)") }
        }
        if isCMYK { convertCMYKToRGBA(&pixels, invertedByAdobe: s.hasAdobeMarker) }

        let info = ImageInfo(format: .jpeg, width: Int(width), height: Int(height), hasAlpha: false, orientation: s.orientation)
        return DecodedImage(info: info, pixels: PixelBuffer(width: outWidth, height: outHeight, hasAlpha: false, pixels: pixels))
    }

    /// The smallest M/8 (M = 1...8) not below the hint: libjpeg-turbo's IDCT scales in eighths.
    static func scalingFactor(for hint: DecodeScaleHint) -> (num: Int, denom: Int) {
        for eighths in 1...8 where Double(eighths) / 8 >= hint.minimumScale {
            return (eighths, 8)
        }
        return (1, 1)
    }

    static func scaled(_ dimension: Int, _ factor: (num: Int, denom: Int)) -> Int {
        (dimension * factor.num + factor.denom - 1) / factor.denom
    }

    /// Adobe writes CMYK inverted (0 means full ink); other writers store it plainly.
    private static func convertCMYKToRGBA(_ pixels: inout [UInt8], invertedByAdobe: Bool) {
        pixels.withUnsafeMutableBufferPointer { p in
            for i in stride(from: 0, to: p.count, by: 4) {
                var c = Int(p[i]), m = Int(p[i + 1]), y = Int(p[i + 2]), k = Int(p[i + 3])
                if !invertedByAdobe { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                p[i] = UInt8((c * k + 127) / 255)
                p[i + 1] = UInt8((m * k + 127) / 255)
                p[i + 2] = UInt8((y * k + 127) / 255)
                p[i + 3] = 255
            }
        }
    }
}
