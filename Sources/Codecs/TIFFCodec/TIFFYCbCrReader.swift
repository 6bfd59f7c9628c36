#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTIFF
import ImageCore

/// YCbCr that is not JPEG-compressed (uncompressed, LZW, Deflate, old-style JPEG), read through
/// libtiff's RGBA interface, which undoes the subsampling and converts with the file's
/// YCbCrCoefficients and ReferenceBlackWhite.
///
/// That interface also turns the image to a requested orientation, but only by flipping rows and
/// columns, and only for some Orientation values (it never transposes). Claiming that the image
/// is stored top-left and asking for top-left makes it flip nothing, for every value: the rows come
/// back as stored, like every other path, and thumbd applies the orientation once.
enum TIFFYCbCrReader {
    /// The raster of 32-bit pixels beside the output, and libtiff's strip buffer (at most one strip).
    static func workingBytes(_ directory: TIFFDirectory, stripBytes: UInt64) -> Int {
        directory.width * directory.height * 4 + Int(clamping: stripBytes)
    }

    static func decode(_ file: borrowing LibTIFFFile, _ directory: TIFFDirectory) throws(ImageError) -> [UInt8] {
        var message = [CChar](repeating: 0, count: 1024)
        file.clearErrors()
        guard TIFFRGBAImageOK(file.handle, &message) != 0 else {
            throw .unsupported("TIFF YCbCr that libtiff's RGBA reader refuses: \(text(message))")
        }
        var image = TIFFRGBAImage()
        guard TIFFRGBAImageBegin(&image, file.handle, 1, &message) != 0 else {
            throw file.failure.error("starting libtiff's RGBA reader (\(text(message)))")
        }
        defer { TIFFRGBAImageEnd(&image) }
        image.orientation = UInt16(ORIENTATION_TOPLEFT)
        image.req_orientation = UInt16(ORIENTATION_TOPLEFT)

        let width = directory.width, height = directory.height
        // calloc: zeroed pages touched only as libtiff fills them (a file failing at once costs nothing).
        guard let memory = calloc(width * height, MemoryLayout<UInt32>.stride) else {
            throw ImageError(.pixelLimitExceeded, "could not allocate the \(width)x\(height) TIFF raster")
        }
        defer { free(memory) }
        let raster = memory.bindMemory(to: UInt32.self, capacity: width * height)
        file.clearErrors()
        guard TIFFRGBAImageGet(&image, raster, UInt32(width), UInt32(height)) != 0 else {
            throw file.failure.error("decoding YCbCr through libtiff's RGBA reader")
        }

        // Each raster value is A << 24 | B << 16 | G << 8 | R (libtiff's TIFFGetR ... TIFFGetA).
        var pixels = [UInt8](repeating: 0, count: width * height * PixelBuffer.bytesPerPixel)
        pixels.withUnsafeMutableBufferPointer { out in
            for i in 0..<width * height {
                let value = raster[i]
                out[4 * i] = UInt8(truncatingIfNeeded: value)
                out[4 * i + 1] = UInt8(truncatingIfNeeded: value >> 8)
                out[4 * i + 2] = UInt8(truncatingIfNeeded: value >> 16)
                out[4 * i + 3] = UInt8(truncatingIfNeeded: value >> 24)
            }
        }
        return pixels
    }

    /// libtiff's message buffer, up to its terminating zero.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
