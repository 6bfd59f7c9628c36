import CGIF
import ImageCore

/// The bytes giflib reads through DGifOpen's input function, and whether it ever asked for more than
/// there was: giflib's own error codes cannot tell a file cut short from a bad byte.
final class GIFByteSource {
    private let data: [UInt8]
    private(set) var position = 0
    private(set) var ranOut = false

    init(_ data: [UInt8]) { self.data = data }

    var remaining: Int { data.count - position }

    /// Copies up to `count` bytes into `buffer`; fewer (and `ranOut`) at the end of the data.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let copied = min(max(0, count), remaining)
        if copied < count { ranOut = true }
        if copied > 0 {
            data.withUnsafeBufferPointer { bytes in
                buffer.update(from: bytes.baseAddress! + position, count: copied)
            }
        }
        position += copied
        return copied
    }
}

/// A frame's image descriptor as giflib read it, with the colour table that applies to it (the local
/// one wins over the global one).
struct GIFFrameDescriptor {
    let left: Int
    let top: Int
    let width: Int
    let height: Int
    let interlaced: Bool
    /// 256 entries of R, G, B; entries past `colorCount` are black.
    let colors: [UInt8]
    let colorCount: Int
}

/// One giflib decoder (DGifOpen over a byte source), walked record by record. Noncopyable, so that
/// DGifCloseFile runs exactly once; the source is held here, so it outlives every giflib call.
struct GIFLibFile: ~Copyable {
    private let file: UnsafeMutablePointer<GifFileType>
    private let source: GIFByteSource

    /// libgif's version, from the header it was built with (giflib has no run-time version call).
    static var version: String { "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)" }

    /// Opens the file: giflib reads the signature, the screen descriptor and the global colour table.
    init(_ data: [UInt8]) throws(ImageError) {
        let source = GIFByteSource(data)
        var status: Int32 = 0
        let opened = withExtendedLifetime(source) {
            DGifOpen(Unmanaged.passUnretained(source).toOpaque(), { file, buffer, count in
                guard let file, let buffer, let context = file.pointee.UserData else { return 0 }
                let source = Unmanaged<GIFByteSource>.fromOpaque(context).takeUnretainedValue()
                return Int32(source.read(into: buffer, count: Int(count)))
            }, &status)
        }
        guard let opened else {
            throw .gif(status, ranOut: source.ranOut, "reading the GIF header and global colour table")
        }
        self.file = opened
        self.source = source
    }

    deinit {
        DGifCloseFile(file, nil)
    }

    /// Bytes not read yet.
    var remainingBytes: Int { source.remaining }

    private func failure(_ what: String) -> ImageError {
        .gif(Int32(file.pointee.Error), ranOut: source.ranOut, what)
    }

    /// The next record's kind (image descriptor, extension or trailer).
    func nextRecord() throws(ImageError) -> GifRecordType {
        var record = UNDEFINED_RECORD_TYPE
        guard DGifGetRecordType(file, &record) == GIF_OK else { throw failure("reading a record type") }
        return record
    }

    /// Reads a whole extension (every sub-block). Returns its label and first sub-block, which is all
    /// thumbd needs of any extension (the Graphics Control Extension is one 4-byte sub-block).
    func readExtension() throws(ImageError) -> (label: Int, firstBlock: [UInt8]) {
        var label: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(file, &label, &block) == GIF_OK else { throw failure("reading an extension") }
        // giflib hands out its own buffer: length in byte 0, then the bytes.
        let first = block.map { Array(UnsafeBufferPointer(start: $0 + 1, count: Int($0[0]))) } ?? []
        while block != nil {
            guard DGifGetExtensionNext(file, &block) == GIF_OK else { throw failure("reading an extension's sub-blocks") }
        }
        return (Int(label), first)
    }

    /// Reads an image descriptor, its local colour table and the LZW code size, and picks the colour
    /// table that applies: the local one, else the global one. Neither is corrupt (Wuffs, in Chromium,
    /// would paint such a frame opaque black: no picture worth a thumbnail).
    func readImageDescriptor() throws(ImageError) -> GIFFrameDescriptor {
        guard DGifGetImageDesc(file) == GIF_OK else { throw failure("reading an image descriptor") }
        let image = file.pointee.Image
        guard let map = image.ColorMap ?? file.pointee.SColorMap else {
            throw .corrupt("the GIF frame has neither a local nor a global colour table")
        }
        let count = max(0, min(256, Int(map.pointee.ColorCount)))
        var colors = [UInt8](repeating: 0, count: 256 * 3)
        if let entries = map.pointee.Colors {
            for i in 0..<count {
                colors[i * 3] = entries[i].Red
                colors[i * 3 + 1] = entries[i].Green
                colors[i * 3 + 2] = entries[i].Blue
            }
        }
        return GIFFrameDescriptor(left: Int(image.Left), top: Int(image.Top), width: Int(image.Width), height: Int(image.Height),
                                  interlaced: image.Interlace, colors: colors, colorCount: count)
    }

    /// Decodes the next `line.count` pixels of the current frame (a row) into `line`.
    func readLine(into line: inout [UInt8]) throws(ImageError) {
        let count = Int32(line.count)
        let status = line.withUnsafeMutableBufferPointer { DGifGetLine(file, $0.baseAddress, count) }
        guard status == GIF_OK else { throw failure("decoding the first frame's pixels") }
    }

    /// Skips the current frame's LZW data without decoding it (its sub-blocks up to the terminator).
    func skipImageData() throws(ImageError) {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(file, &codeSize, &block) == GIF_OK else { throw failure("skipping a frame's data") }
        while block != nil {
            guard DGifGetCodeNext(file, &block) == GIF_OK else { throw failure("skipping a frame's data") }
        }
    }

    /// Extensions read between two frames before giving up on finding the second (real files have one
    /// or two: a Graphics Control Extension, perhaps a comment).
    static let maximumExtensionsBetweenFrames = 1000

    /// Whether another image descriptor follows the current frame's data, past any extensions: a
    /// record scan, no pixel decoded, each step reading at least one byte, at most
    /// `maximumExtensionsBetweenFrames` extensions. A damaged or missing tail (many GIFs lack their
    /// trailer) says no: the first frame is whole, and a still is what thumbd makes of it anyway.
    func anotherImageFollows() -> Bool {
        for _ in 0...Self.maximumExtensionsBetweenFrames {
            guard let record = try? nextRecord() else { return false }
            switch record {
            case IMAGE_DESC_RECORD_TYPE:
                return true
            case EXTENSION_RECORD_TYPE:
                guard (try? readExtension()) != nil else { return false }
            default:
                return false
            }
        }
        return false
    }
}
