import CHEIF
import Foundation
import ImageCore
import Testing
import TestSupport

/// libheif's encoder API (x265), for what heif-enc 1.15 cannot write: irot/imir boxes (from an EXIF
/// orientation: libheif writes the transform that stands the stored pixels up) and an ICC profile.
enum LibHEIFWriter {
    /// libheif wants heif_init before contexts are made from several threads (HEIFCodec does the same).
    static let initialized: Bool = heif_init(nil).code == heif_error_Ok

    static func encode(_ stored: PixelBuffer, orientation: Orientation = .up, icc: [UInt8]? = nil, quality: Int32 = 90) throws -> [UInt8] {
        guard initialized, let context = heif_context_alloc() else { throw HEIFEnc.Failure("heif_init or heif_context_alloc") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "no HEVC encoder")
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, quality), "quality")

        var image: OpaquePointer?
        try check(heif_image_create(Int32(stored.width), Int32(stored.height), heif_colorspace_RGB, heif_chroma_interleaved_RGBA, &image), "image")
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(stored.width), Int32(stored.height), 8), "plane")
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(image, heif_channel_interleaved, &stride))
        for row in 0..<stored.height {
            let start = row * stored.rowBytes
            stored.pixels[start..<start + stored.rowBytes].withUnsafeBytes { (plane + row * Int(stride)).update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: stored.rowBytes) }
        }
        if let icc {
            try check(icc.withUnsafeBytes { heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, icc.count) }, "ICC")
        }
        let options = try #require(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.save_alpha_channel = stored.hasAlpha ? 1 : 0
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation.rawValue))
        try check(heif_context_encode_image(context, image, encoder, options, nil), "encode")

        let folder = try HEIFEnc.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.heic").path
        try check(heif_context_write_to_file(context, path), "write")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private static func check(_ error: heif_error, _ what: String) throws {
        guard error.code == heif_error_Ok else {
            throw HEIFEnc.Failure("libheif \(what): \(error.message.map { String(cString: $0) } ?? "\(error.code)")")
        }
    }
}

/// ISO-BMFF surgery on the files made above.
enum HEIFBoxes {
    static func find(_ data: [UInt8], _ type: String, from: Int = 0) -> Int? {
        let t = Array(type.utf8)
        return (from..<max(from, data.count - 4)).first { Array(data[$0..<$0 + 4]) == t }
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// Every ispe property set to `width` x `height`.
    static func patchingISPE(_ data: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        var out = data
        var at = 0
        var patched = 0
        while let ispe = find(out, "ispe", from: at) {
            // type, then version and flags, then width and height.
            out.replaceSubrange(ispe + 8..<ispe + 12, with: be32(width))
            out.replaceSubrange(ispe + 12..<ispe + 16, with: be32(height))
            patched += 1
            at = ispe + 16
        }
        guard patched > 0 else { throw HEIFEnc.Failure("no ispe") }
        return out
    }

    /// The grid descriptor that heif-enc keeps in idat (for an odd-sized image, a 1x1 grid that crops
    /// the even-sized tile) with its output size replaced (16-bit fields).
    static func patchingGrid(_ data: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let idat = try #require(find(data, "idat"), "no idat: not a grid")
        var out = data
        // After the type: version, flags, rows - 1, columns - 1, then width and height.
        #expect(out[idat + 5] & 1 == 0, "the grid uses 32-bit sizes")
        out.replaceSubrange(idat + 8..<idat + 10, with: be16(width))
        out.replaceSubrange(idat + 10..<idat + 12, with: be16(height))
        return out
    }
}
