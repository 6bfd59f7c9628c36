import CTIFF
import ImageCore

/// Where the strips or tiles ("chunks") of the first directory lie, and how big each decodes,
/// computed from the directory and checked against libtiff's own count and size before any
/// chunk buffer exists.
///
/// Strips span the image's width and `RowsPerStrip` rows (the last one fewer); tiles are all the
/// same size, those on the right and bottom edges reaching past the image. With separate planes
/// every sample has its own set of chunks, plane after plane.
struct TIFFChunkGrid {
    let tiled: Bool
    /// A chunk's width and height in pixels (a strip's height is capped at the image's).
    let chunkWidth: Int
    let chunkHeight: Int
    let across: Int
    let down: Int
    /// 1 for contiguous samples, else one plane a sample.
    let planes: Int
    /// Samples a pixel within one chunk: all of them, or 1 with separate planes.
    let samplesPerChunkPixel: Int
    let bitsPerSample: Int
    /// Bytes of one decoded chunk row (rows start on a byte).
    let rowBytes: Int
    /// Bytes of one decoded chunk (a strip of full height, or a tile).
    let chunkBytes: Int

    /// Largest tile side accepted beyond the image's own side: writers choose tiles of a few hundred
    /// pixels, and a tile far larger than its image would only make thumbd allocate for nothing.
    static let maxTileSideBeyondImage = 4096

    init(_ file: borrowing LibTIFFFile, _ directory: TIFFDirectory, limits: DecodeLimits) throws(ImageError) {
        tiled = file.isTiled
        planes = directory.planesSeparate ? directory.samplesPerPixel : 1
        samplesPerChunkPixel = directory.planesSeparate ? 1 : directory.samplesPerPixel
        bitsPerSample = directory.bitsPerSample
        let kind = tiled ? "tile" : "strip"
        if tiled {
            guard let tileWidth = file.u32(TIFFTAG_TILEWIDTH, defaulted: false), let tileHeight = file.u32(TIFFTAG_TILELENGTH, defaulted: false),
                  tileWidth > 0, tileHeight > 0 else {
                throw .corrupt("the tiled TIFF has no TileWidth or TileLength")
            }
            for (side, imageSide, name) in [(Int(tileWidth), directory.width, "width"), (Int(tileHeight), directory.height, "height")]
            where side > max(Self.roundedUp(imageSide, to: 16), Self.maxTileSideBeyondImage) {
                throw ImageError(.pixelLimitExceeded, "TIFF tile \(name) \(side) is absurd for an image \(imageSide) pixels across")
            }
            chunkWidth = Int(tileWidth)
            chunkHeight = Int(tileHeight)
        } else {
            // libtiff's default RowsPerStrip is 2^32 - 1: one strip for the whole image.
            let rowsPerStrip = Int(file.u32(TIFFTAG_ROWSPERSTRIP) ?? UInt32.max)
            guard rowsPerStrip > 0 else { throw .corrupt("TIFF RowsPerStrip is 0") }
            chunkWidth = directory.width
            chunkHeight = min(rowsPerStrip, directory.height)
        }
        across = (directory.width + chunkWidth - 1) / chunkWidth
        down = (directory.height + chunkHeight - 1) / chunkHeight

        // Sides are at most 2^32 and samples 2^16, bits 16: a row's bit count fits in 53 bits.
        rowBytes = (chunkWidth * samplesPerChunkPixel * bitsPerSample + 7) / 8
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: chunkHeight)
        guard !overflow, bytes <= limits.maxDecodeBytes else {
            throw ImageError(.pixelLimitExceeded, "a TIFF \(kind) of \(chunkWidth)x\(chunkHeight) pixels is over the decode memory limit")
        }
        chunkBytes = bytes

        let count = tiled ? file.tileCount : file.stripCount
        guard count == across * down * planes else {
            throw .corrupt("the TIFF has \(count) \(kind)s; its size and layout call for \(across * down * planes)")
        }
        // libtiff decodes into our buffer up to the size it computes itself: the two must agree.
        guard file.chunkByteCount == UInt64(chunkBytes) else {
            throw .corrupt("libtiff computes a \(kind) of \(file.chunkByteCount) bytes, the layout calls for \(chunkBytes)")
        }
    }

    /// The strip or tile at (`column`, `row`) of the grid, in sample plane `plane`.
    func index(column: Int, row: Int, plane: Int) -> Int {
        (plane * down + row) * across + column
    }

    var kind: String { tiled ? "tile" : "strip" }

    private static func roundedUp(_ value: Int, to multiple: Int) -> Int {
        (value + multiple - 1) / multiple * multiple
    }
}
