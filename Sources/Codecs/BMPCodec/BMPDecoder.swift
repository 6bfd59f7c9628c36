import ImageCore

/// BMP pixel data to RGBA, once `BMPHeader` has checked that every byte it names lies inside the file.
enum BMPDecoder {
    static func decode(_ data: [UInt8], _ header: BMPHeader) throws(ImageError) -> PixelBuffer {
        let width = header.width, height = header.height
        // Zeroed: transparent black, which is what RLE leaves where it paints nothing.
        var rgba = [UInt8](repeating: 0, count: width * height * PixelBuffer.bytesPerPixel)
        let hasAlpha: Bool
        switch header.encoding {
        case .indexed(let palette, let bitsPerPixel):
            decodeIndexed(data, header, palette, bitsPerPixel, into: &rgba)
            hasAlpha = false
        case .rle(let palette, let bitsPerPixel):
            var rle = BMPRLEDecoder(width: width, height: height, palette: palette, nibbles: bitsPerPixel == 4)
            try rle.decode(data[header.pixelData], into: &rgba)
            hasAlpha = !rle.paintedEveryPixel
        case .masked(let masks):
            hasAlpha = decodeMasked(data, header, masks, into: &rgba)
        }
        return PixelBuffer(width: width, height: height, hasAlpha: hasAlpha, pixels: rgba)
    }

    /// The output row a stored row lands in: BMP rows run bottom-up unless the height was negative.
    private static func outputRow(_ storedRow: Int, _ header: BMPHeader) -> Int {
        header.isTopDown ? storedRow : header.height - 1 - storedRow
    }

    /// The bytes a stored row's pixels occupy (its padding excluded); checked once a row, before the
    /// unchecked reads below.
    private static func rowStart(_ storedRow: Int, _ header: BMPHeader, bitsPerPixel: Int, count: Int) -> Int {
        let start = header.pixelData.lowerBound + storedRow * header.rowStride
        precondition(start + (header.width * bitsPerPixel + 7) / 8 <= min(count, header.pixelData.upperBound),
                     "BMP row \(storedRow) lies outside the pixel data BMPHeader checked")
        return start
    }

    private static func decodeIndexed(_ data: [UInt8], _ header: BMPHeader, _ palette: BMPPalette, _ bitsPerPixel: Int,
                                      into rgba: inout [UInt8]) {
        let width = header.width
        let perByteShift = bitsPerPixel == 8 ? 0 : bitsPerPixel == 4 ? 1 : 3  // log2(pixels in a byte)
        let lastInByte = (1 << perByteShift) - 1
        let indexMask = UInt8((1 << bitsPerPixel) - 1)
        rgba.withUnsafeMutableBufferPointer { output in
            data.withUnsafeBufferPointer { bytes in
                palette.rgba.withUnsafeBufferPointer { colors in
                    for storedRow in 0..<header.height {
                        let source = rowStart(storedRow, header, bitsPerPixel: bitsPerPixel, count: bytes.count)
                        var target = outputRow(storedRow, header) * width * 4
                        for x in 0..<width {
                            let byte = bytes[source + (x >> perByteShift)]
                            // The first pixel of a byte is in its high bits.
                            let shift = (lastInByte - (x & lastInByte)) * bitsPerPixel
                            let entry = Int((byte >> UInt8(shift)) & indexMask) * 4
                            output[target] = colors[entry]
                            output[target + 1] = colors[entry + 1]
                            output[target + 2] = colors[entry + 2]
                            output[target + 3] = 255
                            target += 4
                        }
                    }
                }
            }
        }
    }

    /// Returns whether the image has alpha: an alpha mask, some pixel below 255, and not every pixel 0
    /// (a file whose alpha bytes are all 0 is shown opaque, as browsers do: its writer left them empty).
    private static func decodeMasked(_ data: [UInt8], _ header: BMPHeader, _ masks: BMPChannelMasks,
                                     into rgba: inout [UInt8]) -> Bool {
        let width = header.width, bytesPerPixel = masks.bytesPerPixel
        var sawVisibleAlpha = false, sawTransparency = false
        rgba.withUnsafeMutableBufferPointer { output in
            data.withUnsafeBufferPointer { bytes in
                for storedRow in 0..<header.height {
                    var source = rowStart(storedRow, header, bitsPerPixel: bytesPerPixel * 8, count: bytes.count)
                    var target = outputRow(storedRow, header) * width * 4
                    if let r = masks.red.wholeByte, let g = masks.green.wholeByte, let b = masks.blue.wholeByte,
                       masks.alpha.width == 0 || masks.alpha.wholeByte != nil {
                        // Whole-byte channels (B G R, B G R X, B G R A and the like): no arithmetic.
                        let a = masks.alpha.wholeByte
                        for _ in 0..<width {
                            output[target] = bytes[source + r]
                            output[target + 1] = bytes[source + g]
                            output[target + 2] = bytes[source + b]
                            let alpha = a.map { bytes[source + $0] } ?? 255
                            output[target + 3] = alpha
                            sawVisibleAlpha = sawVisibleAlpha || alpha != 0
                            sawTransparency = sawTransparency || alpha != 255
                            source += bytesPerPixel
                            target += 4
                        }
                    } else {
                        for _ in 0..<width {
                            var pixel: UInt32 = 0
                            for i in 0..<bytesPerPixel { pixel |= UInt32(bytes[source + i]) << UInt32(8 * i) }
                            output[target] = masks.red.sample(pixel, absent: 0)
                            output[target + 1] = masks.green.sample(pixel, absent: 0)
                            output[target + 2] = masks.blue.sample(pixel, absent: 0)
                            let alpha = masks.alpha.sample(pixel, absent: 255)
                            output[target + 3] = alpha
                            sawVisibleAlpha = sawVisibleAlpha || alpha != 0
                            sawTransparency = sawTransparency || alpha != 255
                            source += bytesPerPixel
                            target += 4
                        }
                    }
                }
            }
        }
        guard masks.hasAlpha, sawVisibleAlpha else {
            if masks.hasAlpha {
                for alpha in stride(from: 3, to: rgba.count, by: 4) { rgba[alpha] = 255 }
            }
            return false
        }
        return sawTransparency
    }
}
