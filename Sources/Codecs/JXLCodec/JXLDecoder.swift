import CJXL
import ImageCore

/// The decode, over libjxl's event loop (LibJXLDecoder): the signature first, then the basic info
/// and the limits, then the colour encoding, then the first displayed frame into thumbd's buffer.
enum JXLDecoder {
    /// libjxl's output: 8-bit RGBA, not premultiplied, rows packed. Grey images are expanded to
    /// R = G = B, and images without alpha get 255.
    static let rgba = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// Events before the first frame's pixels: basic info, colour encoding, the frame's header and
    /// the request for its buffer. More means libjxl is not going where it should.
    private static let maxEventsBeforePixels = 8

    static func readInfo(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> ImageInfo {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try checkSignature(buffer)
            let decoder = try LibJXLDecoder(buffer, events: [JXL_DEC_BASIC_INFO])
            return try header(decoder, limits: limits).info
        }
    }

    static func decode(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) -> DecodedImage {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try checkSignature(buffer)
            let decoder = try LibJXLDecoder(buffer, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING, JXL_DEC_FRAME, JXL_DEC_FULL_IMAGE])
            let header = try header(decoder, limits: limits)
            let what = "\(header.width)x\(header.height) JPEG XL"
            // Before libjxl sets up any frame, and before the output is allocated.
            try limits.check(decodeBytes: header.decodeBytes, what: what)

            var color: EmbeddedColor?
            var events = 0
            waitingForBuffer: while true {
                events += 1
                guard events <= maxEventsBeforePixels else { throw .corrupt("libjxl asked for no output buffer for the \(what)") }
                switch try decoder.next("reading the headers of the \(what)") {
                case JXL_DEC_COLOR_ENCODING:
                    JXLOutputColor.choose(decoder, header)
                    color = JXLOutputColor.describe(decoder)
                case JXL_DEC_FRAME:
                    try checkFrame(decoder, limits: limits, what: what)
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    break waitingForBuffer
                case JXL_DEC_SUCCESS:
                    throw .corrupt("the \(what) holds no frame to display")
                case let status:
                    throw .corrupt("libjxl answered \(status.rawValue) before the first frame of the \(what)")
                }
            }
            guard let color else { throw .corrupt("libjxl gave no colour encoding for the \(what)") }
            let pixels = try decodeFirstFrame(decoder, header, what: what)
            return DecodedImage(info: header.info, pixels: pixels, color: color)
        }
    }

    static func embeddedColor(_ data: [UInt8]) throws(ImageError) -> EmbeddedColor {
        try data.withUnsafeBufferPointer { buffer throws(ImageError) in
            try checkSignature(buffer)
            let decoder = try LibJXLDecoder(buffer, events: [JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING])
            // No pixel is decoded, so no limit applies: the headers alone, whatever size they say.
            let header = try basicInfo(decoder)
            guard try decoder.next("reading the colour encoding") == JXL_DEC_COLOR_ENCODING else {
                throw .corrupt("libjxl gave no colour encoding")
            }
            JXLOutputColor.choose(decoder, header)
            return JXLOutputColor.describe(decoder)
        }
    }

    // MARK: Steps

    /// libjxl's JxlSignatureCheck: a bare codestream (FF 0A) or the container's signature box, and
    /// then, for the container, every top-level box whole.
    static func checkSignature(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        guard let base = data.baseAddress, !data.isEmpty else { throw .corrupt("the JPEG XL file is empty") }
        switch JxlSignatureCheck(base, data.count) {
        case JXL_SIG_CODESTREAM:
            return
        case JXL_SIG_CONTAINER:
            try JXLContainer.checkBoxes(data)
        case JXL_SIG_NOT_ENOUGH_BYTES:
            throw .truncated("JPEG XL data ends early (truncated file): \(data.count) bytes, within its signature")
        default:
            throw .unsupported("not a JPEG XL file: it starts with neither FF 0A nor the JPEG XL container's signature box")
        }
    }

    /// The basic info, with its size checked against `limits.maxPixels`.
    private static func header(_ decoder: borrowing LibJXLDecoder, limits: DecodeLimits) throws(ImageError) -> JXLHeader {
        let header = try basicInfo(decoder)
        try limits.check(width: header.width, height: header.height)
        return header
    }

    /// The first event must be the basic info.
    private static func basicInfo(_ decoder: borrowing LibJXLDecoder) throws(ImageError) -> JXLHeader {
        guard try decoder.next("reading the header") == JXL_DEC_BASIC_INFO, let info = decoder.basicInfo else {
            throw .corrupt("libjxl gave no basic info")
        }
        return try JXLHeader(info)
    }

    /// A displayed frame's own size (a layer may be larger than the canvas; libjxl decodes all of
    /// it before cropping), before libjxl allocates anything for it.
    private static func checkFrame(_ decoder: borrowing LibJXLDecoder, limits: DecodeLimits, what: String) throws(ImageError) {
        guard let frame = decoder.frameHeader else { throw .corrupt("libjxl gave no frame header for the \(what)") }
        let layer = frame.layer_info
        guard layer.xsize > 0, layer.ysize > 0 else { return }
        do {
            try limits.check(width: Int(layer.xsize), height: Int(layer.ysize))
        } catch {
            throw ImageError(error.code, "JPEG XL frame of the \(what): \(error.message)")
        }
    }

    /// Decodes the first displayed frame straight into the returned array (checked against the
    /// limits by the caller). libjxl writes only between `setImageOutBuffer` and its
    /// `JXL_DEC_FULL_IMAGE`, both inside the array's initializer; no further event is asked for.
    private static func decodeFirstFrame(_ decoder: borrowing LibJXLDecoder, _ header: JXLHeader, what: String) throws(ImageError) -> PixelBuffer {
        let count = header.outputBytes
        guard decoder.imageOutBufferSize(rgba) == count else {
            throw .corrupt("libjxl wants an output buffer for the \(what) of another size than its header says")
        }
        var failure: ImageError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard decoder.setImageOutBuffer(rgba, buffer) else {
                failure = .corrupt("libjxl refused the output buffer for the \(what)")
                return
            }
            do throws(ImageError) {
                let status = try decoder.next("decoding the first frame of the \(what)")
                guard status == JXL_DEC_FULL_IMAGE else {
                    throw .corrupt("libjxl answered \(status.rawValue) instead of the first frame of the \(what)")
                }
                initialized = count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return PixelBuffer(width: header.width, height: header.height, hasAlpha: header.hasAlpha, pixels: bytes)
    }
}
