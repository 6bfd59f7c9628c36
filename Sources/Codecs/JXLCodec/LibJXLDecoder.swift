import CJXL
import ImageCore

/// One JxlDecoder over bytes that outlive it (the caller's buffer, read in place), with the whole
/// file given at once. Noncopyable, so that it is destroyed exactly once.
///
/// The input is deliberately *not* closed (JxlDecoderCloseInput): libjxl 0.7 then answers a file
/// cut short with `JXL_DEC_NEED_MORE_INPUT`, which, the whole file being given, can only mean the
/// cut. With the input closed, 0.7 turns that same need into `JXL_DEC_ERROR` (measured: every cut
/// of the test files past their signature came back as an error), and truncation could not be
/// told from damage. Closing matters only to JXL_DEC_BOX, which thumbd does not ask for, and to a
/// decoder that reads past the frame it wants, which this one never does.
///
/// No parallel runner is set: libjxl then decodes on the calling thread. thumbd already runs one
/// decode per core on its own pool, so a thread runner would only add threads that compete with
/// the other decodes (and create and join them for every image) on the same two cores.
struct LibJXLDecoder: ~Copyable {
    private let decoder: OpaquePointer

    /// `events` is a mask of JXL_DEC_* informative events (BASIC_INFO, COLOR_ENCODING, ...).
    init(_ data: UnsafeBufferPointer<UInt8>, events: [JxlDecoderStatus]) throws(ImageError) {
        guard let base = data.baseAddress, !data.isEmpty else { throw .corrupt("the JPEG XL file is empty") }
        guard let decoder = JxlDecoderCreate(nil) else {
            throw ImageError(.pixelLimitExceeded, "libjxl could not allocate a decoder")
        }
        let mask = events.reduce(Int32(0)) { $0 | Int32($1.rawValue) }
        // Unpremultiply: thumbd's pixels are never premultiplied (no effect on images with plain alpha).
        guard JxlDecoderSubscribeEvents(decoder, mask) == JXL_DEC_SUCCESS,
              JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
              JxlDecoderSetInput(decoder, base, data.count) == JXL_DEC_SUCCESS else {
            JxlDecoderDestroy(decoder)
            throw .unsupported("libjxl \(JXLCodec.libraryVersion) refused the decoder settings")
        }
        self.decoder = decoder
    }

    deinit { JxlDecoderDestroy(decoder) }

    /// The next event, or the error that ends the decode. `JXL_DEC_NEED_MORE_INPUT` cannot be
    /// answered (the whole file was given), so it is the cut file it means; `JXL_DEC_ERROR` is
    /// damaged data (libjxl 0.7 says no more than that).
    func next(_ what: @autoclosure () -> String) throws(ImageError) -> JxlDecoderStatus {
        let status = JxlDecoderProcessInput(decoder)
        switch status {
        case JXL_DEC_NEED_MORE_INPUT:
            throw .truncated("JPEG XL data ends early (truncated file) while \(what())")
        case JXL_DEC_ERROR:
            throw .corrupt("JPEG XL data is invalid: libjxl failed while \(what())")
        default:
            return status
        }
    }

    var basicInfo: JxlBasicInfo? {
        var info = JxlBasicInfo()
        return JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS ? info : nil
    }

    var frameHeader: JxlFrameHeader? {
        var header = JxlFrameHeader()
        return JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS ? header : nil
    }

    /// The structured colour encoding of `target`, or nil when the file carries an ICC profile instead.
    func encodedProfile(_ target: JxlColorProfileTarget) -> JxlColorEncoding? {
        var encoding = JxlColorEncoding()
        return JxlDecoderGetColorAsEncodedProfile(decoder, nil, target, &encoding) == JXL_DEC_SUCCESS ? encoding : nil
    }

    /// The byte count of `target`'s ICC profile (as stored, or made by libjxl from the structured
    /// encoding), or nil when libjxl has none to give (an XYB or unknown colour space).
    func iccProfileSize(_ target: JxlColorProfileTarget) -> Int? {
        var size = 0
        return JxlDecoderGetICCProfileSize(decoder, nil, target, &size) == JXL_DEC_SUCCESS ? size : nil
    }

    /// `target`'s ICC profile, `size` bytes (from `iccProfileSize`, checked by the caller).
    func iccProfile(_ target: JxlColorProfileTarget, size: Int) -> [UInt8]? {
        var ok = false
        let profile = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            ok = JxlDecoderGetColorAsICCProfile(decoder, nil, target, buffer.baseAddress, size) == JXL_DEC_SUCCESS
            initialized = ok ? size : 0
        }
        return ok ? profile : nil
    }

    /// Asks for `encoding` as the output's colour space where libjxl has a choice (XYB images only).
    /// Only between the COLOR_ENCODING event and the next one.
    func preferColorProfile(_ encoding: JxlColorEncoding) -> Bool {
        var encoding = encoding
        return JxlDecoderSetPreferredColorProfile(decoder, &encoding) == JXL_DEC_SUCCESS
    }

    /// The bytes libjxl needs for the whole (first displayed) frame in `format`.
    func imageOutBufferSize(_ format: JxlPixelFormat) -> Int? {
        var format = format
        var size = 0
        return JxlDecoderImageOutBufferSize(decoder, &format, &size) == JXL_DEC_SUCCESS ? size : nil
    }

    /// Hands libjxl the buffer the frame is written to. It must stay valid, and untouched, until
    /// `JXL_DEC_FULL_IMAGE` (or until this decoder is destroyed).
    func setImageOutBuffer(_ format: JxlPixelFormat, _ buffer: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        var format = format
        return JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS
    }
}
