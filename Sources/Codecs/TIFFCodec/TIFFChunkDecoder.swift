#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ImageCore

/// Decodes the first directory strip by strip (or tile by tile) with libtiff, and converts each
/// decoded chunk's rows straight into the output: the pixels come back as stored, row 0 first,
/// whatever the Orientation tag says.
///
/// Memory beside the output is one decoded chunk a plane and one row of 16-bit samples
/// (`workingBytes`), checked against the limits with the output before anything is allocated.
/// The output itself is allocated once the first chunk has decoded: a small hostile file that
/// claims a large image fails on its first strip without costing the whole image's memory.
enum TIFFChunkDecoder {
    /// Bytes held beside the 4-byte-a-pixel output while decoding.
    static func workingBytes(_ grid: TIFFChunkGrid, _ directory: TIFFDirectory) -> Int {
        grid.chunkBytes * grid.planes + grid.chunkWidth * directory.samplesPerPixel * MemoryLayout<UInt16>.stride
    }

    static func decode(_ file: borrowing LibTIFFFile, _ directory: TIFFDirectory, _ grid: TIFFChunkGrid,
                       _ converter: TIFFPixelConverter) throws(ImageError) -> [UInt8] {
        var pixels: [UInt8] = []
        // calloc: zeroed pages from the system, touched only as libtiff fills them, so a strip that
        // fails at its first byte costs no time for its size.
        guard let chunkMemory = calloc(grid.chunkBytes * grid.planes, 1) else {
            throw ImageError(.pixelLimitExceeded, "could not allocate \(grid.chunkBytes * grid.planes) bytes for TIFF \(grid.kind)s")
        }
        defer { free(chunkMemory) }
        let chunks = UnsafeMutableRawBufferPointer(start: chunkMemory, count: grid.chunkBytes * grid.planes)
        let samplesPerPixel = directory.samplesPerPixel
        let samples = UnsafeMutablePointer<UInt16>.allocate(capacity: grid.chunkWidth * samplesPerPixel)
        defer { samples.deallocate() }

        for row in 0..<grid.down {
            for column in 0..<grid.across {
                let x0 = column * grid.chunkWidth, y0 = row * grid.chunkHeight
                let width = min(grid.chunkWidth, directory.width - x0)
                let rows = min(grid.chunkHeight, directory.height - y0)
                // A strip decodes to its own rows (the last one fewer); a tile always to its full size.
                let needed = grid.tiled ? grid.chunkBytes : rows * grid.rowBytes
                for plane in 0..<grid.planes {
                    let buffer = UnsafeMutableRawBufferPointer(rebasing: chunks[plane * grid.chunkBytes..<(plane + 1) * grid.chunkBytes])
                    try read(file, grid, index: grid.index(column: column, row: row, plane: plane), into: buffer, needed: needed)
                }
                if pixels.isEmpty { pixels = [UInt8](repeating: 0, count: directory.width * directory.height * PixelBuffer.bytesPerPixel) }
                pixels.withUnsafeMutableBufferPointer { out in
                    for r in 0..<rows {
                        for plane in 0..<grid.planes {
                            let source = UnsafeRawPointer(chunks.baseAddress!) + plane * grid.chunkBytes + r * grid.rowBytes
                            // Separate planes: this plane's sample of each pixel, samplesPerPixel apart.
                            TIFFSampleUnpacker.unpack(row: source, bits: grid.bitsPerSample, count: width * grid.samplesPerChunkPixel,
                                                      into: samples + plane, stride: grid.planes)
                        }
                        let target = out.baseAddress! + ((y0 + r) * directory.width + x0) * PixelBuffer.bytesPerPixel
                        converter.convert(samples, count: width, into: target)
                    }
                }
            }
        }
        return pixels
    }

    /// Decodes one strip or tile, and makes sure it filled what the rows need.
    private static func read(_ file: borrowing LibTIFFFile, _ grid: TIFFChunkGrid, index: Int,
                             into buffer: UnsafeMutableRawBufferPointer, needed: Int) throws(ImageError) {
        file.clearErrors()
        let decoded = file.readChunk(index, into: buffer)
        if decoded < 0 {
            var failure = file.failure
            failure.pastEnd = file.chunkLiesPastEnd(index)
            throw failure.error("decoding \(grid.kind) \(index)")
        }
        guard decoded >= needed else {
            if file.chunkLiesPastEnd(index) {
                throw .truncated("TIFF data ends early (truncated file): \(grid.kind) \(index) lies past the end and decoded to \(decoded) of \(needed) bytes")
            }
            throw .corrupt("TIFF \(grid.kind) \(index) decoded to \(decoded) bytes, \(needed) expected")
        }
    }
}
