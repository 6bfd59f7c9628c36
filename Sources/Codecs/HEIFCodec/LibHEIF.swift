import CHEIF
import ImageCore

/// libheif, set up once for the process.
enum LibHEIF {
    /// heif_init before the first context: it registers the built-in decoders (libde265 on Debian 12)
    /// under libheif's own lock. Without it libheif registers them lazily on first use, unguarded,
    /// and thumbd decodes one image per core at once. Never undone: the process keeps libheif.
    static let initialized: Bool = heif_init(nil).code == heif_error_Ok

    static var version: String { String(cString: heif_get_version()) }

    /// libheif's own ceiling on a side (its MAX_IMAGE_WIDTH/HEIGHT), kept while parsing.
    static let maxSide = 32768
}

/// One heif_context over bytes that outlive it (the caller's buffer, read without a copy), and its
/// primary image's handle. Noncopyable, so that both are released exactly once.
struct LibHEIFFile: ~Copyable {
    private let context: OpaquePointer
    let handle: OpaquePointer

    init(_ data: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) throws(ImageError) {
        guard LibHEIF.initialized else { throw .unsupported("libheif \(LibHEIF.version) could not be initialised") }
        guard let base = data.baseAddress, !data.isEmpty else { throw .corrupt("the HEIC file is empty") }
        guard let context = heif_context_alloc() else {
            throw ImageError(.pixelLimitExceeded, "libheif could not allocate a context")
        }
        // libheif refuses an ispe with a side over this while parsing; no side can exceed the pixel limit.
        heif_context_set_maximum_image_size_limit(context, Int32(min(LibHEIF.maxSide, max(1, limits.maxPixels))))
        // Tiles decode on the calling thread: thumbd runs one image per core on its own pool.
        heif_context_set_max_decoding_threads(context, 0)
        let read = heif_context_read_from_memory_without_copy(context, base, data.count, nil)
        // A heif_error's message lives in the context: the ImageError is made before the context is freed.
        guard read.code == heif_error_Ok else {
            let error = ImageError.heif(read, "reading the HEIF boxes")
            heif_context_free(context)
            throw error
        }
        var handle: OpaquePointer?
        let primary = heif_context_get_primary_image_handle(context, &handle)
        guard primary.code == heif_error_Ok, let handle else {
            let error = ImageError.heif(primary, "finding the primary image")
            heif_context_free(context)
            throw error
        }
        self.context = context
        self.handle = handle
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// Displayed size: after irot (a quarter turn swaps the sides) and clap, as libheif decodes it.
    var size: (width: Int, height: Int) {
        (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
    }

    /// Coded size, from ispe, before any transform.
    var codedSize: (width: Int, height: Int) {
        (Int(heif_image_handle_get_ispe_width(handle)), Int(heif_image_handle_get_ispe_height(handle)))
    }

    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }

    /// Bits per luma sample (8 when libheif does not say, as for some grids).
    var bitDepth: Int {
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        return bits > 0 ? bits : 8
    }

    /// The ICC profile of a `colr` box when there is one (libheif prefers it to nclx), else what the
    /// nclx box says: BT.709 primaries with the sRGB transfer are sRGB. Other CICP has no EmbeddedColor
    /// case yet (as for AVIF): unspecified, the samples taken as sRGB.
    var embeddedColor: EmbeddedColor {
        switch heif_image_handle_get_color_profile_type(handle) {
        case heif_color_profile_type_prof, heif_color_profile_type_rICC:
            let size = heif_image_handle_get_raw_color_profile_size(handle)
            guard size > 0 else { return .unspecified }
            var profile = [UInt8](repeating: 0, count: size)
            let result = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            return result.code == heif_error_Ok ? .iccProfile(profile) : .unusableProfile(reason: "libheif could not read the HEIC's ICC profile")
        case heif_color_profile_type_nclx:
            var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
            guard heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return .unspecified }
            defer { heif_nclx_color_profile_free(nclx) }
            let isSRGB = nclx.pointee.color_primaries == heif_color_primaries_ITU_R_BT_709_5
                && nclx.pointee.transfer_characteristics == heif_transfer_characteristic_IEC_61966_2_1
            return isSRGB ? .sRGB : .unspecified
        default:
            return .unspecified
        }
    }

    /// Decodes to 8-bit RGBA (not premultiplied), with irot, imir and clap applied by libheif, and
    /// copies it out of libheif's image. `size` is checked against what came back.
    func decodeRGBA(expecting size: (width: Int, height: Int)) throws(ImageError) -> [UInt8] {
        guard let options = heif_decoding_options_alloc() else {
            throw ImageError(.pixelLimitExceeded, "libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        // HEIF's rule: irot/imir are the image's orientation and an Exif item's Orientation tag is
        // ignored; libheif applies them here, so thumbd reports the image upright (orientation 1).
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 1
        var decoded: OpaquePointer?
        let result = heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options)
        guard result.code == heif_error_Ok, let image = decoded else {
            throw .heif(result, "decoding the \(size.width)x\(size.height) image")
        }
        defer { heif_image_release(image) }
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        guard width == size.width, height == size.height else {
            throw .corrupt("the decoded HEIC image (\(width)x\(height)) differs from its header (\(size.width)x\(size.height))")
        }
        guard heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) == 8 else {
            throw .unsupported("libheif decoded the HEIC to \(heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved))-bit samples, not 8")
        }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw .corrupt("libheif decoded no pixels for the \(width)x\(height) image")
        }
        let rowBytes = width * PixelBuffer.bytesPerPixel
        guard Int(stride) >= rowBytes else { throw .corrupt("libheif's row stride \(stride) is under \(rowBytes) bytes") }
        return [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            for row in 0..<height {
                let source = UnsafeRawPointer(plane + row * Int(stride))
                UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[row * rowBytes..<(row + 1) * rowBytes]))
                    .copyMemory(from: UnsafeRawBufferPointer(start: source, count: rowBytes))
            }
            initialized = rowBytes * height
        }
    }
}
