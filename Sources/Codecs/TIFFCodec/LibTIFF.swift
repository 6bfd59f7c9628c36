import CTIFF
import CTIFFBridge
import ImageCore

/// libtiff as loaded at run time.
enum LibTIFF {
    /// The number from TIFFGetVersion's first line ("LIBTIFF, Version 4.5.0").
    static var version: String {
        let text = String(cString: TIFFGetVersion())
        let firstLine = text.split(separator: "\n").first ?? ""
        return firstLine.split(separator: " ").last.map(String.init) ?? String(firstLine)
    }
}

/// One libtiff handle on the first directory of a TIFF file held in memory, with the messages
/// libtiff reported for it. The bytes are read in place: the file must live only inside a
/// `withUnsafeBufferPointer` of the data. Noncopyable, so the handle is closed exactly once.
struct LibTIFFFile: ~Copyable {
    private let bridge: OpaquePointer
    /// libtiff's TIFF*, for calls into libtiff.
    let handle: OpaquePointer
    /// The size of the file, for telling a cut file from a corrupt one.
    let byteCount: Int

    /// Opens the first directory. `maxSingleAllocation` caps every allocation libtiff makes for it.
    init(_ data: UnsafeBufferPointer<UInt8>, maxSingleAllocation: Int) throws(ImageError) {
        guard let base = data.baseAddress, !data.isEmpty else { throw .corrupt("the TIFF file is empty") }
        guard let bridge = thumbd_tiff_open(base, data.count, Int64(clamping: maxSingleAllocation)) else {
            throw ImageError(.pixelLimitExceeded, "could not allocate libtiff's state")
        }
        guard let handle = thumbd_tiff_handle(bridge) else {
            let failure = TIFFFailure(message: String(cString: thumbd_tiff_first_error(bridge)),
                                      readPastEnd: thumbd_tiff_read_past_end(bridge) != 0)
            thumbd_tiff_close(bridge)
            throw failure.error("reading the first directory")
        }
        self.bridge = bridge
        self.handle = handle
        self.byteCount = data.count
    }

    deinit { thumbd_tiff_close(bridge) }

    // MARK: Messages

    /// What libtiff said since the last `clearErrors()`, for the error thrown on a failed call.
    var failure: TIFFFailure {
        TIFFFailure(message: String(cString: thumbd_tiff_first_error(bridge)), readPastEnd: thumbd_tiff_read_past_end(bridge) != 0)
    }

    func clearErrors() { thumbd_tiff_clear_errors(bridge) }

    // MARK: Fields

    /// A 16-bit field; with `defaulted`, libtiff's default when the file has none.
    func u16(_ tag: Int32, defaulted: Bool = true) -> UInt16? {
        var value: UInt16 = 0
        return thumbd_tiff_get_u16(handle, UInt32(tag), defaulted ? 1 : 0, &value) != 0 ? value : nil
    }

    func u32(_ tag: Int32, defaulted: Bool = true) -> UInt32? {
        var value: UInt32 = 0
        return thumbd_tiff_get_u32(handle, UInt32(tag), defaulted ? 1 : 0, &value) != 0 ? value : nil
    }

    /// The kinds of the samples after the colour channels (EXTRASAMPLE_*).
    var extraSamples: [UInt16] {
        var count: UInt16 = 0
        var kinds: UnsafePointer<UInt16>?
        guard thumbd_tiff_get_extra_samples(handle, &count, &kinds) != 0, let kinds else { return [] }
        return Array(UnsafeBufferPointer(start: kinds, count: Int(count)))
    }

    /// The colour map's three arrays of `entries` values, copied.
    func colormap(entries: Int) -> (red: [UInt16], green: [UInt16], blue: [UInt16])? {
        var red: UnsafePointer<UInt16>?, green: UnsafePointer<UInt16>?, blue: UnsafePointer<UInt16>?
        guard thumbd_tiff_get_colormap(handle, &red, &green, &blue) != 0, let red, let green, let blue else { return nil }
        // libtiff reads exactly 2^BitsPerSample entries of each (it refuses a shorter map).
        return (Array(UnsafeBufferPointer(start: red, count: entries)), Array(UnsafeBufferPointer(start: green, count: entries)),
                Array(UnsafeBufferPointer(start: blue, count: entries)))
    }

    var iccProfile: [UInt8]? {
        var length: UInt32 = 0
        var bytes: UnsafePointer<UInt8>?
        guard thumbd_tiff_get_icc_profile(handle, &length, &bytes) != 0, let bytes, length > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }

    /// Makes libtiff's JPEG codec hand back RGB for YCbCr data (libjpeg upsamples and converts).
    func requestJPEGRGBOutput() -> Bool { thumbd_tiff_set_jpeg_rgb_output(handle) != 0 }

    // MARK: Strips and tiles

    var isTiled: Bool { TIFFIsTiled(handle) != 0 }
    var stripCount: Int { Int(TIFFNumberOfStrips(handle)) }
    var tileCount: Int { Int(TIFFNumberOfTiles(handle)) }
    /// libtiff's size of one decoded strip (full height) or tile, for one plane when planes are separate.
    var chunkByteCount: UInt64 { isTiled ? TIFFTileSize64(handle) : TIFFStripSize64(handle) }

    /// Decodes strip or tile `index` into `buffer`: the bytes decoded, or -1 when libtiff failed (see `failure`).
    func readChunk(_ index: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let size = tmsize_t(buffer.count)
        let read = isTiled ? TIFFReadEncodedTile(handle, UInt32(index), buffer.baseAddress, size)
            : TIFFReadEncodedStrip(handle, UInt32(index), buffer.baseAddress, size)
        return Int(read)
    }

    /// Whether strip or tile `index` claims bytes past the end of the file: the file was cut short
    /// (or its offsets are damaged, which cannot be told apart from a cut).
    func chunkLiesPastEnd(_ index: Int) -> Bool {
        var failed: Int32 = 0
        let offset = TIFFGetStrileOffsetWithErr(handle, UInt32(index), &failed)
        let count = TIFFGetStrileByteCountWithErr(handle, UInt32(index), &failed)
        guard failed == 0 else { return false }
        let (end, overflow) = offset.addingReportingOverflow(count)
        return overflow || end > UInt64(byteCount)
    }
}
