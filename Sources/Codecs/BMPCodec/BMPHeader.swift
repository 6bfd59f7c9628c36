import ImageCore

/// The info header kinds thumbd reads, by their size field.
enum BMPInfoHeaderKind: Int {
    case core = 12
    case info = 40
    case v2 = 52
    case v3 = 56
    case os2 = 64
    case v4 = 108
    case v5 = 124

    var name: String {
        switch self {
        case .core: "BITMAPCOREHEADER"
        case .info: "BITMAPINFOHEADER"
        case .v2: "BITMAPV2INFOHEADER"
        case .v3: "BITMAPV3INFOHEADER"
        case .os2: "OS/2 2.x BITMAPINFOHEADER2"
        case .v4: "BITMAPV4HEADER"
        case .v5: "BITMAPV5HEADER"
        }
    }
}

/// How the pixel data is stored.
enum BMPPixelEncoding: Equatable {
    /// Rows of 1-, 4- or 8-bit palette indices.
    case indexed(BMPPalette, bitsPerPixel: Int)
    /// RLE8 (`bitsPerPixel` 8) or RLE4 (4): a stream of runs and escapes, always bottom-up.
    case rle(BMPPalette, bitsPerPixel: Int)
    /// Rows of 16-, 24- or 32-bit pixels whose channels the masks pick out.
    case masked(BMPChannelMasks)
}

/// Everything the headers of a BMP say, checked against the file's size and `DecodeLimits` before
/// any pixel memory exists.
struct BMPHeader {
    static let fileHeaderSize = 14

    let kind: BMPInfoHeaderKind
    let width: Int
    /// Rows, whichever way they are stored.
    let height: Int
    /// A negative height in the header: the first stored row is the top one.
    let isTopDown: Bool
    let encoding: BMPPixelEncoding
    /// The bytes of the pixel array (every row, padding included) or of the RLE stream.
    let pixelData: Range<Int>
    /// Bytes from one stored row to the next, rounded up to 4 (0 for RLE).
    let rowStride: Int
    let color: EmbeddedColor

    var info: ImageInfo {
        ImageInfo(format: .bmp, width: width, height: height, hasAlpha: mayHaveAlpha, orientation: .up, isAnimated: false)
    }

    /// An alpha mask, or RLE (whose unpainted pixels are transparent).
    var mayHaveAlpha: Bool {
        switch encoding {
        case .indexed: false
        case .rle: true
        case .masked(let masks): masks.hasAlpha
        }
    }

    /// The RGBA output, the only buffer a decode allocates.
    var decodeBytes: Int {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow || pixels > Int.max / PixelBuffer.bytesPerPixel ? Int.max : pixels * PixelBuffer.bytesPerPixel
    }

    init(_ data: [UInt8], limits: DecodeLimits) throws(ImageError) {
        try Self.checkSignature(data)
        let file = LittleEndianReader(data: data)
        let start = Self.fileHeaderSize
        let pixelOffset = Int(try file.u32(10, "file header"))
        let infoSize = Int(try file.u32(start, "info header size"))
        guard let kind = BMPInfoHeaderKind(rawValue: infoSize) else {
            if (16..<64).contains(infoSize) {
                throw .unsupported("a \(infoSize)-byte OS/2 2.x BMP header (only the whole 64-byte one is read)")
            }
            throw .corrupt("the BMP info header declares \(infoSize) bytes, which is no known header")
        }
        guard data.count >= start + infoSize else {
            throw .truncated("the BMP file (\(data.count) bytes) ends inside its \(infoSize)-byte \(kind.name)")
        }
        self.kind = kind

        // The fields every header has (OS/2 1.x with 16-bit sizes and no compression).
        let width, signedHeight, planes, bitsPerPixel: Int
        var compression: UInt32 = 0, imageSize = 0, colorsUsed = 0
        if kind == .core {
            width = try file.u16(start + 4, "width")
            signedHeight = try file.u16(start + 6, "height")
            planes = try file.u16(start + 8, "planes")
            bitsPerPixel = try file.u16(start + 10, "bit count")
        } else {
            width = try file.i32(start + 4, "width")
            signedHeight = try file.i32(start + 8, "height")
            planes = try file.u16(start + 12, "planes")
            bitsPerPixel = try file.u16(start + 14, "bit count")
            compression = try file.u32(start + 16, "compression")
            imageSize = Int(try file.u32(start + 20, "image size"))
            colorsUsed = Int(try file.u32(start + 32, "colours used"))
        }
        guard planes == 1 else { throw .corrupt("the BMP declares \(planes) colour planes; only 1 exists") }
        guard width > 0, signedHeight != 0 else { throw .corrupt("the BMP declares an empty or negative size \(width)x\(signedHeight)") }
        let method = try BMPCompressionMethod(compression, kind)
        isTopDown = signedHeight < 0
        height = abs(signedHeight)
        self.width = width
        try limits.check(width: width, height: height)

        // Masks: V2 and later headers hold them; after a shorter header, the missing ones follow it.
        var headersEnd = start + infoSize
        var masks: BMPChannelMasks?
        switch method {
        case .bitfields(let withAlpha):
            guard [16, 24, 32].contains(bitsPerPixel) else {
                throw .corrupt("BI_BITFIELDS needs 16, 24 or 32 bits a pixel, not \(bitsPerPixel)")
            }
            var rgba: [UInt32] = []
            let inHeader = infoSize >= 56 ? 4 : infoSize >= 52 ? 3 : 0
            for i in 0..<inHeader { rgba.append(try file.u32(start + 40 + 4 * i, "colour masks")) }
            let wanted = withAlpha ? 4 : 3
            while rgba.count < wanted {
                rgba.append(try file.u32(headersEnd, "colour masks"))
                headersEnd += 4
            }
            if rgba.count < 4 { rgba.append(0) }
            masks = try BMPChannelMasks(red: rgba[0], green: rgba[1], blue: rgba[2], alpha: rgba[3], bitsPerPixel: bitsPerPixel)
        case .rgb where [16, 24, 32].contains(bitsPerPixel) && (kind != .core || bitsPerPixel == 24):
            // BI_RGB takes no colour masks from the header, but the alpha mask of a V3+ header applies.
            let alpha = try [.v3, .v4, .v5].contains(kind) ? file.u32(start + 52, "alpha mask") : 0
            masks = try BMPChannelMasks.fixed(bitsPerPixel: bitsPerPixel, alpha: alpha)
        case .rgb where [1, 4, 8].contains(bitsPerPixel):
            break
        case .rgb where bitsPerPixel == 2:
            throw .unsupported("2-bit BMP (a Windows CE format)")
        case .rgb:
            throw .corrupt("a \(kind.name) BMP cannot have \(bitsPerPixel) bits a pixel")
        case .rle8 where bitsPerPixel != 8, .rle4 where bitsPerPixel != 4:
            throw .corrupt("\(method.name) needs \(method == .rle8 ? 8 : 4) bits a pixel, not \(bitsPerPixel)")
        case .rle8, .rle4:
            guard !isTopDown else { throw .corrupt("a top-down BMP cannot be \(method.name)-compressed") }
        }

        guard pixelOffset >= headersEnd else {
            throw .corrupt("the BMP's pixel data offset \(pixelOffset) points inside its headers (which end at byte \(headersEnd))")
        }
        guard pixelOffset <= data.count else {
            throw .truncated("the BMP's pixel data starts at byte \(pixelOffset), past the end of the file (\(data.count) bytes)")
        }

        if let masks {
            encoding = .masked(masks)
        } else {
            // The colour table lies between the headers and the pixel data: as many entries as the
            // header says (all 2^bits when it says 0), no more than that space holds.
            let entrySize = kind == .core ? 3 : 4
            let addressable = 1 << bitsPerPixel
            let declared = colorsUsed == 0 || colorsUsed > addressable ? addressable : colorsUsed
            let count = min(declared, (pixelOffset - headersEnd) / entrySize)
            guard count > 0 else { throw .corrupt("the \(bitsPerPixel)-bit BMP has no colour table before its pixel data") }
            let palette = BMPPalette(data[headersEnd..<headersEnd + count * entrySize], count: count, entrySize: entrySize)
            encoding = method == .rgb ? .indexed(palette, bitsPerPixel: bitsPerPixel) : .rle(palette, bitsPerPixel: bitsPerPixel)
        }

        if case .rle = encoding {
            // biSizeImage is the stream's length (0: the rest of the file).
            let available = data.count - pixelOffset
            guard imageSize <= available else {
                throw .truncated("the BMP declares \(imageSize) bytes of \(method.name) data; only \(available) follow its pixel offset")
            }
            pixelData = pixelOffset..<(imageSize > 0 ? pixelOffset + imageSize : data.count)
            rowStride = 0
        } else {
            // width <= Int32.max and bits <= 32: no overflow on 64 bits; the product with height may.
            rowStride = (width * bitsPerPixel + 31) / 32 * 4
            let (size, overflow) = rowStride.multipliedReportingOverflow(by: height)
            let available = data.count - pixelOffset
            guard !overflow, size <= available else {
                throw .truncated("the BMP's \(height) rows of \(rowStride) bytes need \(overflow ? "more" : String(size)) bytes after byte \(pixelOffset); the file holds \(available)")
            }
            pixelData = pixelOffset..<pixelOffset + size
        }
        color = try Self.color(file, kind)
    }

    /// V4 and V5 headers name a colour space; a V5 header can embed an ICC profile, at an offset
    /// counted from the start of the info header.
    private static func color(_ file: LittleEndianReader, _ kind: BMPInfoHeaderKind) throws(ImageError) -> EmbeddedColor {
        guard kind == .v4 || kind == .v5 else { return .unspecified }
        let start = fileHeaderSize
        switch try file.u32(start + 56, "colour space type") {
        case 0x7352_4742, 0x5769_6E20:  // 'sRGB' (LCS_sRGB), 'Win ' (LCS_WINDOWS_COLOR_SPACE: sRGB on Windows)
            return .sRGB
        case 0x4D42_4544 where kind == .v5:  // 'MBED' (PROFILE_EMBEDDED)
            let offset = Int(try file.u32(start + 112, "profile offset"))
            let size = Int(try file.u32(start + 116, "profile size"))
            let count = file.data.count
            guard size > 0, offset <= count - start, size <= count - start - offset else {
                return .unusableProfile(reason: "the BMP's embedded profile (\(size) bytes at info header offset \(offset)) lies outside the \(count)-byte file")
            }
            return .iccProfile(Array(file.data[start + offset..<start + offset + size]))
        default:
            // LCS_CALIBRATED_RGB (endpoints and gammas), PROFILE_LINKED (a file name): taken as sRGB.
            return .unspecified
        }
    }

    private static func checkSignature(_ data: [UInt8]) throws(ImageError) {
        let signature = Array(data.prefix(2))
        switch signature {
        case [0x42, 0x4D]:  // "BM"
            return
        case []:
            throw .corrupt("the BMP file is empty")
        case [0x42]:
            throw .truncated("the BMP file ends inside its signature")
        case Array("BA".utf8), Array("CI".utf8), Array("CP".utf8), Array("IC".utf8), Array("PT".utf8):
            throw .unsupported("an OS/2 bitmap array or icon (signature \(String(decoding: signature, as: UTF8.self)))")
        default:
            throw .corrupt("not a BMP file: it does not start with \"BM\"")
        }
    }
}

/// The biCompression values thumbd reads; the others are refused with a reason.
enum BMPCompressionMethod: Equatable {
    case rgb
    case rle8
    case rle4
    /// BI_BITFIELDS (three masks) or BI_ALPHABITFIELDS (four).
    case bitfields(withAlpha: Bool)

    var name: String {
        switch self {
        case .rgb: "BI_RGB"
        case .rle8: "RLE8"
        case .rle4: "RLE4"
        case .bitfields(let withAlpha): withAlpha ? "BI_ALPHABITFIELDS" : "BI_BITFIELDS"
        }
    }

    /// OS/2 2.x gives 3 and 4 other meanings than Windows does.
    init(_ value: UInt32, _ kind: BMPInfoHeaderKind) throws(ImageError) {
        switch value {
        case 0: self = .rgb
        case 1: self = .rle8
        case 2: self = .rle4
        case 3 where kind == .os2: throw .unsupported("OS/2 BMP with Huffman 1D (fax) compression")
        case 3: self = .bitfields(withAlpha: false)
        case 4 where kind == .os2: throw .unsupported("OS/2 BMP with RLE24 compression")
        case 4: throw .unsupported("BMP holding a JPEG (BI_JPEG): a printer format no browser shows")
        case 5: throw .unsupported("BMP holding a PNG (BI_PNG): a printer format no browser shows")
        case 6 where kind != .os2: self = .bitfields(withAlpha: true)
        case 11, 12, 13: throw .unsupported("CMYK BMP (compression \(value)): a printer format no browser shows")
        default: throw .corrupt("the BMP declares an unknown compression \(value)")
        }
    }
}
