import CJXL
import Foundation
import ImageCore
import Testing
import TestSupport
@testable import JXLCodec

/// libjxl applies the codestream's orientation exactly once: every file comes back upright,
/// reported as `.up` with the displayed size.
@Suite("JPEG XL orientation")
struct JXLOrientationTests {
    /// orientation_N.jxl (cjxl took N from the PNG's eXIf chunk) stores the picture turned so that
    /// orientation N shows it upright: all eight must decode to orientation_1's pixels, exactly.
    @Test("cjxl's eight orientation files all decode upright, as .up, 24x16", arguments: 1...8)
    func committedFiles(_ orientation: Int) throws {
        let upright = try JXLCodec.decode(try JXLFiles.bytes("orientation_1.jxl"), limits: DecodeLimits(), scale: .fullSize).pixels
        let data = try JXLFiles.bytes("orientation_\(orientation).jxl")
        let info = try JXLCodec.readInfo(data, limits: DecodeLimits())
        #expect(info.orientation == .up && info.width == 24 && info.height == 16, "\(orientation): \(info)")
        let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        #expect(decoded.pixels == upright, "orientation \(orientation) is not upright")
        // Its stored pixels really are turned: the codestream says so, and libjxl keeps them as
        // stored when asked to.
        let stored = try Self.decodeKeepingOrientation(data)
        #expect(stored.orientation == UInt32(orientation))
        if orientation != 1 { #expect(stored.pixels != upright.pixels, "orientation \(orientation) stores the picture upright") }
    }

    /// Independent of cjxl: the encoder API writes the stored pixels of a non-square noisy image with
    /// each orientation in the basic info; the decode must equal the pixels turned by hand.
    @Test("files written with JxlBasicInfo.orientation decode to the stored pixels turned by hand", arguments: Orientation.allCases)
    func encoderAPI(_ orientation: Orientation) throws {
        var random = SeededRandom(seed: UInt64(orientation.rawValue))
        // Opaque, but written with an alpha channel (JXLTestWriter always writes one).
        var stored = PixelBuffer(width: 13, height: 7, hasAlpha: true)
        for i in 0..<stored.width * stored.height { stored.pixels[i * 4 + 3] = 255 }
        for i in 0..<stored.width * stored.height {
            for c in 0..<3 { stored.pixels[i * 4 + c] = UInt8(random.below(256)) }
        }
        let data = try JXLTestWriter.lossless(stored, orientation: UInt32(orientation.rawValue))
        let decoded = try JXLCodec.decode(data, limits: DecodeLimits(), scale: .fullSize)
        let expected = Self.displayed(stored, orientation)
        #expect(decoded.info.orientation == .up)
        #expect(decoded.info.width == expected.width && decoded.info.height == expected.height, "\(orientation): \(decoded.info)")
        #expect(decoded.pixels.pixels == expected.pixels, "\(orientation)")
        if orientation != .up { #expect(decoded.pixels.pixels != stored.pixels, "\(orientation) came back as stored") }
    }

    /// What EXIF orientation `orientation` shows for `stored`: displayed (x, y) reads stored (sx, sy).
    static func displayed(_ stored: PixelBuffer, _ orientation: Orientation) -> PixelBuffer {
        let (w, h) = (stored.width, stored.height)
        let size = orientation.uprightSize(width: w, height: h)
        var out = PixelBuffer(width: size.width, height: size.height)
        for y in 0..<size.height {
            for x in 0..<size.width {
                let (sx, sy): (Int, Int)
                switch orientation {
                case .up: (sx, sy) = (x, y)
                case .upMirrored: (sx, sy) = (w - 1 - x, y)
                case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                case .downMirrored: (sx, sy) = (x, h - 1 - y)
                case .leftMirrored: (sx, sy) = (y, x)
                case .right: (sx, sy) = (y, h - 1 - x)
                case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                case .left: (sx, sy) = (w - 1 - y, x)
                }
                for c in 0..<4 { out.pixels[(y * size.width + x) * 4 + c] = stored.pixels[(sy * w + sx) * 4 + c] }
            }
        }
        return out
    }

    /// libjxl's decode with JxlDecoderSetKeepOrientation: the stored pixels and the orientation field.
    static func decodeKeepingOrientation(_ data: [UInt8]) throws -> (pixels: [UInt8], orientation: UInt32) {
        guard let decoder = JxlDecoderCreate(nil) else { throw Tools.Failure("JxlDecoderCreate") }
        defer { JxlDecoderDestroy(decoder) }
        _ = JxlDecoderSetKeepOrientation(decoder, JXL_TRUE)
        _ = JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue))
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var info = JxlBasicInfo()
        // Test files only (small): the buffer lives until libjxl is destroyed.
        var pixels = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
        defer { pixels.deallocate() }
        return try data.withUnsafeBufferPointer { input in
            _ = JxlDecoderSetInput(decoder, input.baseAddress, input.count)
            JxlDecoderCloseInput(decoder)
            while true {
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_BASIC_INFO:
                    _ = JxlDecoderGetBasicInfo(decoder, &info)
                    pixels = .allocate(capacity: Int(info.xsize * info.ysize) * 4)
                    pixels.initialize(repeating: 0)
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    _ = JxlDecoderSetImageOutBuffer(decoder, &format, pixels.baseAddress, pixels.count)
                case JXL_DEC_FULL_IMAGE:
                    return (Array(pixels), info.orientation.rawValue)
                case let status:
                    throw Tools.Failure("libjxl answered \(status.rawValue)")
                }
            }
        }
    }
}

/// libjxl's encoder API, for what cjxl cannot write: any orientation on any pixels, and a canvas
/// far larger than the one small layer drawn on it (a decompression bomb).
enum JXLTestWriter {
    /// `image` losslessly, with `orientation` in the basic info; or, with `canvas`, as an
    /// `image`-sized layer at (0, 0) of a canvas that size (the rest is left to the decoder).
    static func lossless(_ image: PixelBuffer, orientation: UInt32 = 1, canvas: (width: Int, height: Int)? = nil) throws -> [UInt8] {
        guard let encoder = JxlEncoderCreate(nil) else { throw Tools.Failure("JxlEncoderCreate") }
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(canvas?.width ?? image.width)
        info.ysize = UInt32(canvas?.height ?? image.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.alpha_bits = 8
        info.num_extra_channels = 1
        info.uses_original_profile = JXL_TRUE
        info.orientation = JxlOrientation(rawValue: orientation)
        var sRGB = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&sRGB, JXL_FALSE)
        if canvas != nil { _ = JxlEncoderSetCodestreamLevel(encoder, 10) }
        guard JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS, JxlEncoderSetColorEncoding(encoder, &sRGB) == JXL_ENC_SUCCESS,
              let settings = JxlEncoderFrameSettingsCreate(encoder, nil), JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS else {
            throw Tools.Failure("libjxl refused the settings")
        }
        if canvas != nil {
            var header = JxlFrameHeader()
            JxlEncoderInitFrameHeader(&header)
            header.layer_info.have_crop = JXL_TRUE
            header.layer_info.xsize = UInt32(image.width)
            header.layer_info.ysize = UInt32(image.height)
            guard JxlEncoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS else { throw Tools.Failure("libjxl refused the layer") }
        }
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = image.pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        guard added == JXL_ENC_SUCCESS else { throw Tools.Failure("JxlEncoderAddImageFrame") }
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 1 << 20)
        var available = output.count
        let status = output.withUnsafeMutableBufferPointer { buffer in
            var next = buffer.baseAddress
            return JxlEncoderProcessOutput(encoder, &next, &available)
        }
        guard status == JXL_ENC_SUCCESS else { throw Tools.Failure("JxlEncoderProcessOutput: \(status.rawValue)") }
        return Array(output.prefix(output.count - available))
    }
}
