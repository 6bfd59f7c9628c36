import CTIFF
import ImageCore

/// The header-first checks and the decode, over libtiff (LibTIFFFile).
enum TIFFDecoder {
    static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        _ = try TIFFHeader(data)
        return try withFile(data, maxSingleAllocation: limits.maxDecodeBytes) { file throws(ImageError) in
            try TIFFDirectory(file, limits: limits).info
        }
    }

    static func decode(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> DecodedImage {
        _ = try TIFFHeader(data)
        return try withFile(data, maxSingleAllocation: limits.maxDecodeBytes) { file throws(ImageError) in
            let directory = try TIFFDirectory(file, limits: limits)
            let color = embeddedColor(file)
            let outputBytes = directory.width * directory.height * PixelBuffer.bytesPerPixel
            let what = "\(directory.width)x\(directory.height) TIFF"
            let pixels: [UInt8]
            if directory.model == .ycbcrThroughRGBAReader {
                try limits.check(decodeBytes: outputBytes + TIFFYCbCrReader.workingBytes(directory, stripBytes: file.chunkByteCount), what: what)
                pixels = try TIFFYCbCrReader.decode(file, directory)
            } else {
                let grid = try TIFFChunkGrid(file, directory, limits: limits)
                try limits.check(decodeBytes: outputBytes + TIFFChunkDecoder.workingBytes(grid, directory), what: what)
                let colormap = directory.model == .palette ? file.colormap(entries: 1 << directory.bitsPerSample) : nil
                let converter = try TIFFPixelConverter(directory, colormap: colormap)
                pixels = try TIFFChunkDecoder.decode(file, directory, grid, converter)
            }
            let samples: DecodedSamples = directory.model == .cmyk ? .cmyk(inverted: false) : .rgba
            let buffer = PixelBuffer(width: directory.width, height: directory.height, hasAlpha: directory.hasAlpha, pixels: pixels)
            return DecodedImage(info: directory.info, pixels: buffer, color: color, samples: samples)
        }
    }

    static func embeddedColor(_ data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        _ = try TIFFHeader(data)
        // Nothing is decoded: libtiff only reads the directory, under the default allocation cap.
        return try withFile(data, maxSingleAllocation: DecodeLimits.defaultMaxDecodeBytes) { file throws(ImageError) in
            embeddedColor(file)
        }
    }

    /// TIFFTAG_ICCPROFILE as stored; TIFF has no other colour statement thumbd reads.
    private static func embeddedColor(_ file: borrowing LibTIFFFile) -> EmbeddedColor {
        file.iccProfile.map(EmbeddedColor.iccProfile) ?? .unspecified
    }

    /// libtiff reads `data` in place: the handle lives only inside `body`.
    private static func withFile<T>(_ data: [UInt8], maxSingleAllocation: Int,
                                    _ body: (borrowing LibTIFFFile) throws(ImageError) -> T) throws(ImageError) -> T {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            let file = try LibTIFFFile(buffer, maxSingleAllocation: maxSingleAllocation)
            return try body(file)
        }
    }
}
