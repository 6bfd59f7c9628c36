import CLCMS2
import ImageCore

/// A Little CMS transform from one source to sRGB, made once and used from any thread: it is
/// built without lcms2's one-pixel cache (`cmsFLAGS_NOCACHE`), the only state a transform changes.
final class ColorTransform: @unchecked Sendable {
    /// How the source's samples sit in the decoded buffer's four bytes.
    enum Input: Hashable, Sendable {
        case rgba
        /// Grey in the first byte (a grey image expanded to RGBA).
        case grayInRGBA
        case cmyk(inverted: Bool)

        var format: cmsUInt32Number {
            switch self {
            case .rgba: cmsUInt32Number(THUMBD_TYPE_RGBA_8)
            case .grayInRGBA: cmsUInt32Number(THUMBD_TYPE_GRAY_8_IN_RGBA)
            case .cmyk(let inverted): cmsUInt32Number(inverted ? THUMBD_TYPE_CMYK_8_REV : THUMBD_TYPE_CMYK_8)
            }
        }
    }

    private let handle: cmsHTRANSFORM
    let input: Input

    /// Relative colorimetric with black-point compensation: colours sRGB can show keep their exact
    /// values (a brand's red stays that red), only those outside it are clipped, and a print
    /// profile's paper-grey black still maps to sRGB's black instead of washing out the shadows.
    /// libvips converts with the same intent. (For matrix-shaper profiles such as Display P3 and
    /// Adobe RGB the intents coincide anyway: perceptual needs tables those profiles do not have.)
    static let intent = cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC)
    static let flags = cmsUInt32Number(cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION)

    init?(from source: ICCProfile, to target: ICCProfile, input: Input) {
        guard let handle = cmsCreateTransform(source.handle, input.format, target.handle, cmsUInt32Number(THUMBD_TYPE_RGBA_8),
                                              Self.intent, Self.flags) else { return nil }
        self.handle = handle
        self.input = input
    }

    deinit { cmsDeleteTransform(handle) }

    /// Converts the whole buffer to sRGB RGBA in place, a strip of rows at a time through a small
    /// scratch buffer (lcms2 does not promise in-place transforms). Alpha is kept; CMYK becomes opaque.
    func apply(to image: inout PixelBuffer) {
        let pixelsPerStrip = max(image.width, 16_384)
        var scratch = [UInt8](repeating: 0, count: pixelsPerStrip * 4)
        let total = image.width * image.height
        let opaque: Bool
        if case .cmyk = input { opaque = true } else { opaque = false }
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            scratch.withUnsafeMutableBufferPointer { out in
                guard let base = pixels.baseAddress, let outBase = out.baseAddress else { return }
                var start = 0
                while start < total {
                    let count = min(pixelsPerStrip, total - start)
                    cmsDoTransform(handle, base + start * 4, outBase, cmsUInt32Number(count))
                    for i in 0..<count {
                        let at = (start + i) * 4
                        pixels[at] = out[i * 4]
                        pixels[at + 1] = out[i * 4 + 1]
                        pixels[at + 2] = out[i * 4 + 2]
                        if opaque { pixels[at + 3] = 255 }
                    }
                    start += count
                }
            }
        }
        if opaque { image.hasAlpha = false }
    }
}
