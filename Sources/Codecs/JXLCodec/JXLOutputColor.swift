import CJXL
import ImageCore

/// The colour space of the pixels libjxl hands back, as thumbd's `EmbeddedColor`.
///
/// libjxl 0.7 has no colour management of its own. A lossless (or otherwise "original profile")
/// image comes out in the file's own colour space. An XYB (lossy) image has no colour space of its
/// own: libjxl renders it into the file's structured colour encoding when there is one, and into
/// *linear* sRGB when the file carries an ICC profile instead. 8-bit linear samples lose the
/// shadows, so for those (and for a structured encoding with a linear transfer) the output is
/// asked to use sRGB's transfer curve: sRGB itself when the original was an ICC profile (thumbd
/// converts everything to sRGB anyway, so no colour is lost that a later conversion would have
/// kept), the file's own primaries otherwise, left for ColorManagement to convert.
///
/// What is reported always describes the returned samples: libjxl's *data* target
/// (`JXL_COLOR_PROFILE_TARGET_DATA`), read after the choice above; never the original profile,
/// which an XYB image's samples are not in.
enum JXLOutputColor {
    /// Largest ICC profile passed on: JPEG XL level 5's own maximum, and ColorManagement's.
    static let maxProfileBytes = 4 << 20

    /// At the COLOR_ENCODING event, before anything else: where libjxl may choose the output's
    /// colour space (XYB images), ask for one whose transfer suits 8-bit samples.
    static func choose(_ decoder: borrowing LibJXLDecoder, _ header: JXLHeader) {
        guard !header.usesOriginalProfile else { return }  // libjxl has no choice to make
        if var original = decoder.encodedProfile(JXL_COLOR_PROFILE_TARGET_ORIGINAL) {
            guard original.transfer_function == JXL_TRANSFER_FUNCTION_LINEAR,
                  original.color_space == JXL_COLOR_SPACE_RGB || original.color_space == JXL_COLOR_SPACE_GRAY else { return }
            original.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
            _ = decoder.preferColorProfile(original)
        } else {
            var sRGB = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&sRGB, header.isGrey ? JXL_TRUE : JXL_FALSE)
            // When libjxl refuses, the data target below still says what it chose.
            _ = decoder.preferColorProfile(sRGB)
        }
    }

    /// What the output samples are in: `.sRGB` when libjxl says so in structured form; otherwise
    /// the ICC profile libjxl gives for them (the file's own, or one it makes from the structured
    /// encoding), for ColorManagement to convert.
    static func describe(_ decoder: borrowing LibJXLDecoder) -> EmbeddedColor {
        if let data = decoder.encodedProfile(JXL_COLOR_PROFILE_TARGET_DATA), isSRGB(data) { return .sRGB }
        guard let size = decoder.iccProfileSize(JXL_COLOR_PROFILE_TARGET_DATA), size > 0 else {
            return .unusableProfile(reason: "libjxl gives no ICC profile for its output's colour space (XYB or unknown)")
        }
        guard size <= maxProfileBytes else {
            return .unusableProfile(reason: "its ICC profile is \(size) bytes, over the \(maxProfileBytes >> 20) MiB limit")
        }
        guard let profile = decoder.iccProfile(JXL_COLOR_PROFILE_TARGET_DATA, size: size) else {
            return .unusableProfile(reason: "libjxl could not give its ICC profile")
        }
        return .iccProfile(profile)
    }

    /// sRGB: D65, sRGB's primaries (for RGB) and sRGB's transfer curve. Rendering intent is not a
    /// property of the samples.
    static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        guard encoding.white_point == JXL_WHITE_POINT_D65, encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB else { return false }
        switch encoding.color_space {
        case JXL_COLOR_SPACE_RGB: return encoding.primaries == JXL_PRIMARIES_SRGB
        case JXL_COLOR_SPACE_GRAY: return true
        default: return false
        }
    }
}
