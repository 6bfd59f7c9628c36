import ImageCore

/// RLE8 and RLE4 streams: pairs of bytes, either a run (count, value) or an escape (0, code), where
/// code 0 ends the line, 1 ends the bitmap, 2 moves the pen right and up by the next two bytes (a
/// delta), and 3...255 starts an absolute run of that many literal pixels, padded to 16 bits. RLE4
/// packs two pixels a byte, high nibble first; a run alternates its byte's two nibbles. Rows run
/// bottom-up.
///
/// Pixels the stream never paints (skipped by a delta, an early end of line or end of bitmap) stay
/// transparent black, as browsers show them (Pillow paints them with palette entry 0). A run longer
/// than the rest of its row is cut at the row's end, as Chromium does; an absolute run or a delta
/// that leaves the image is corrupt; once the top row is done the rest of the stream is ignored.
/// A stream that ends before then without its end-of-bitmap marker is `truncated_image`.
struct BMPRLEDecoder {
    let width: Int
    let height: Int
    let palette: BMPPalette
    /// RLE4 rather than RLE8.
    let nibbles: Bool

    /// Pixels painted so far (none twice: the pen only moves forward).
    private(set) var painted = 0
    private var x = 0
    /// Counted from the bottom, as stored.
    private var storedRow = 0

    init(width: Int, height: Int, palette: BMPPalette, nibbles: Bool) {
        (self.width, self.height, self.palette, self.nibbles) = (width, height, palette, nibbles)
    }

    var paintedEveryPixel: Bool { painted == width * height }

    private var name: String { nibbles ? "RLE4" : "RLE8" }

    mutating func decode(_ stream: ArraySlice<UInt8>, into rgba: inout [UInt8]) throws(ImageError) {
        precondition(rgba.count == width * height * PixelBuffer.bytesPerPixel, "RGBA buffer of the wrong size")
        var at = stream.startIndex
        let end = stream.endIndex
        while storedRow < height {
            guard at + 2 <= end else {
                throw .truncated("the BMP's \(name) data ends at row \(storedRow) of \(height) without its end-of-bitmap marker")
            }
            let count = Int(stream[at]), code = stream[at + 1]
            at += 2
            if count > 0 {
                for i in 0..<min(count, width - x) {
                    paint(nibbles ? nibble(of: code, i) : code, into: &rgba)
                }
                continue
            }
            switch code {
            case 0:
                x = 0
                storedRow += 1
            case 1:
                return
            case 2:
                guard at + 2 <= end else { throw .truncated("the BMP's \(name) data ends inside a delta escape") }
                let right = Int(stream[at]), up = Int(stream[at + 1])
                at += 2
                guard x + right <= width, storedRow + up <= height else {
                    throw .corrupt("a \(name) delta (\(right), \(up)) from column \(x) of row \(storedRow) leaves the \(width)x\(height) image")
                }
                x += right
                storedRow += up
            default:
                let literal = Int(code)
                let bytes = nibbles ? (literal + 1) / 2 : literal
                let padded = bytes + bytes % 2
                guard padded <= end - at else { throw .truncated("the BMP's \(name) data ends inside an absolute run") }
                guard x + literal <= width else {
                    throw .corrupt("a \(name) absolute run of \(literal) pixels from column \(x) overflows the \(width)-pixel row")
                }
                for i in 0..<literal {
                    paint(nibbles ? nibble(of: stream[at + i / 2], i) : stream[at + i], into: &rgba)
                }
                at += padded
            }
        }
    }

    /// The i-th pixel of an RLE4 byte: even ones in the high nibble.
    private func nibble(of byte: UInt8, _ i: Int) -> UInt8 {
        i % 2 == 0 ? byte >> 4 : byte & 0x0F
    }

    private mutating func paint(_ index: UInt8, into rgba: inout [UInt8]) {
        let target = ((height - 1 - storedRow) * width + x) * 4
        let entry = Int(index) * 4
        rgba[target] = palette.rgba[entry]
        rgba[target + 1] = palette.rgba[entry + 1]
        rgba[target + 2] = palette.rgba[entry + 2]
        rgba[target + 3] = 255
        x += 1
        painted += 1
    }
}
