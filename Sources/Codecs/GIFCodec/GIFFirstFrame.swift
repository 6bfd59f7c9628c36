import CGIF
import ImageCore

/// The first frame of a GIF as the records before its pixels describe it, and the canvas it is
/// composited on.
///
/// The canvas is the logical screen grown, when the frame reaches past it, to hold the whole frame
/// at its offset: Pillow grows it, and so does Wuffs, Chromium's GIF decoder (unless its
/// quirk_image_bounds_are_strict is set); clipping would drop pixels of the only frame thumbd shows.
/// A screen of zero width or height is thus the frame's extent. An empty first frame is corrupt:
/// there is nothing to make a thumbnail of.
struct GIFFirstFrame {
    let descriptor: GIFFrameDescriptor
    /// The transparent colour index of the last Graphics Control Extension before the frame.
    let transparentIndex: Int?
    let canvasWidth: Int
    let canvasHeight: Int

    init(_ descriptor: GIFFrameDescriptor, transparentIndex: Int?, screenWidth: Int, screenHeight: Int,
         limits: DecodeLimits) throws(ImageError) {
        let d = descriptor
        guard d.width > 0, d.height > 0 else {
            throw .corrupt("the GIF's first frame is empty (\(d.width)x\(d.height))")
        }
        do {
            try limits.check(width: d.width, height: d.height)
            canvasWidth = max(screenWidth, d.left + d.width)
            canvasHeight = max(screenHeight, d.top + d.height)
            try limits.check(width: canvasWidth, height: canvasHeight)
        } catch {
            throw ImageError(error.code, "GIF first frame \(d.width)x\(d.height) at (\(d.left), \(d.top)) on a \(screenWidth)x\(screenHeight) screen: \(error.message)")
        }
        self.descriptor = descriptor
        self.transparentIndex = transparentIndex
    }

    var coversCanvas: Bool {
        descriptor.left == 0 && descriptor.top == 0 && descriptor.width == canvasWidth && descriptor.height == canvasHeight
    }

    /// A transparent index, or canvas the frame leaves uncovered (transparent, as browsers show it).
    var mayHaveAlpha: Bool { transparentIndex != nil || !coversCanvas }

    /// The RGBA canvas, one row of indices, and giflib's LZW tables (about 24 KiB) with some slack.
    /// Only called once the sizes passed `DecodeLimits.check(width:height:)`, so nothing overflows.
    var decodeBytes: Int {
        canvasWidth * canvasHeight * PixelBuffer.bytesPerPixel + descriptor.width + (32 << 10)
    }

    /// The fewest LZW bytes that can hold the frame. No code yields more than 4,095 pixels (giflib's
    /// string limit) and a code that long takes 12 bits, so a frame needs at least pixels / 2,730
    /// bytes; pixels / 4,096 leaves a margin. Less than that is a file cut short: refused before
    /// the canvas is allocated, so a tiny file cannot make thumbd allocate a large one.
    var minimumDataBytes: Int { descriptor.width * descriptor.height / 4096 }

    func info(hasAlpha: Bool, isAnimated: Bool) -> ImageInfo {
        ImageInfo(format: .gif, width: canvasWidth, height: canvasHeight, hasAlpha: hasAlpha, orientation: .up, isAnimated: isAnimated)
    }

    /// The order giflib hands out the frame's rows: top to bottom, or the four interlace passes
    /// (every 8th row from 0, every 8th from 4, every 4th from 2, every 2nd from 1).
    var rowOrder: [Int] {
        let height = descriptor.height
        guard descriptor.interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }
}

extension GIFLibFile {
    /// Walks the records up to the first image descriptor, keeping the last Graphics Control
    /// Extension's transparent index. Other extensions mean nothing for the first frame of a still
    /// and are skipped: NETSCAPE2.0 looping, comments, XMP, and ICCRGBG1 application extensions (an
    /// ICC profile in a GIF, which almost no writer makes and browsers ignore).
    func firstFrame(screen: GIFScreen, limits: DecodeLimits) throws(ImageError) -> GIFFirstFrame {
        var transparentIndex: Int?
        while true {
            let record = try nextRecord()
            switch record {
            case EXTENSION_RECORD_TYPE:
                let (label, block) = try readExtension()
                if label == GRAPHICS_EXT_FUNC_CODE, let control = Self.graphicsControl(block) {
                    transparentIndex = control.TransparentColor == NO_TRANSPARENT_COLOR ? nil : Int(control.TransparentColor)
                }
            case IMAGE_DESC_RECORD_TYPE:
                let descriptor = try readImageDescriptor()
                return try GIFFirstFrame(descriptor, transparentIndex: transparentIndex,
                                         screenWidth: screen.width, screenHeight: screen.height, limits: limits)
            default:
                throw .corrupt("the GIF ends (its trailer) before any image")
            }
        }
    }

    /// A Graphics Control Extension's fields, through giflib; nil unless it is the 4 bytes GIF89a defines.
    private static func graphicsControl(_ block: [UInt8]) -> GraphicsControlBlock? {
        var control = GraphicsControlBlock()
        let status = block.withUnsafeBufferPointer { DGifExtensionToGCB(block.count, $0.baseAddress, &control) }
        return status == GIF_OK ? control : nil
    }
}
