import CJXL
import ImageCore

/// What the codestream header (libjxl's JxlBasicInfo) says, before any frame is decoded.
struct JXLHeader {
    /// The displayed size: libjxl applies the codestream's orientation while decoding and reports
    /// the turned size (width and height trade places for orientations 5 to 8).
    let width: Int
    let height: Int
    let hasAlpha: Bool
    /// One colour channel: libjxl expands it to R = G = B in the RGBA output.
    let isGrey: Bool
    let isAnimated: Bool
    /// False for XYB (lossy) images: libjxl then converts to an output colour space of its choosing.
    let usesOriginalProfile: Bool
    let colorChannels: Int
    /// Alpha, depth, spot colours...: libjxl holds every one of them as a plane while decoding.
    let extraChannels: Int

    init(_ info: JxlBasicInfo) throws(ImageError) {
        guard info.xsize > 0, info.ysize > 0 else {
            throw .corrupt("JPEG XL header declares an empty size \(info.xsize)x\(info.ysize)")
        }
        guard info.num_color_channels == 1 || info.num_color_channels == 3 else {
            throw .corrupt("JPEG XL header declares \(info.num_color_channels) colour channels")
        }
        width = Int(info.xsize)
        height = Int(info.ysize)
        hasAlpha = info.alpha_bits > 0
        isGrey = info.num_color_channels == 1
        isAnimated = info.have_animation != 0
        usesOriginalProfile = info.uses_original_profile != 0
        colorChannels = Int(info.num_color_channels)
        extraChannels = Int(info.num_extra_channels)
    }

    /// Upright: libjxl has applied the orientation (see `width`).
    var info: ImageInfo {
        ImageInfo(format: .jxl, width: width, height: height, hasAlpha: hasAlpha, orientation: .up, isAnimated: isAnimated)
    }

    /// The RGBA output thumbd keeps: 4 bytes a pixel.
    var outputBytes: Int { width * height * PixelBuffer.bytesPerPixel }

    /// libjxl's working memory beside the output, per pixel, counted per plane (colour and extra
    /// channels alike: libjxl holds each as a plane). Measured with libjxl 0.7 on this machine, as the
    /// rise of the peak resident size during one decode of a 4000x2448 photo, less the output:
    /// lossy VarDCT RGB 2.9 to 3.2 bytes a pixel (grey 2.9), a recompressed JPEG 1.5, lossless 0.4 to
    /// 2.1, but lossy modular RGB 22.9, lossy VarDCT RGBA 32.8 to 35.3 and lossy modular RGBA 27.9
    /// (whole-frame integer channels and float copies). The header does not say which coding the
    /// frames use, so the worst is counted: 9 bytes a plane (RGB 27, RGBA 36). An animation keeps
    /// its canvas and reference frames besides: counted twice.
    var workingBytesPerPixel: Int {
        (colorChannels + extraChannels) * 9 * (isAnimated ? 2 : 1)
    }

    /// The output plus libjxl's working memory, saturating at Int.max (a caller's limits may be
    /// far above the default; the extra channel count reaches 4,096 by the codestream's syntax).
    var decodeBytes: Int {
        let perPixel = PixelBuffer.bytesPerPixel + workingBytesPerPixel
        let (pixels, o1) = width.multipliedReportingOverflow(by: height)
        let (total, o2) = pixels.multipliedReportingOverflow(by: perPixel)
        return o1 || o2 ? Int.max : total
    }
}
