import CJPEGBridge
import ImageCore

/// A JPEG at one pixel per 8x8 block of its first component, from the DC coefficients libjpeg's
/// inverse DCT read (`thumbd_jpeg_capture_block_means`): a block's DC is its samples' mean, so this
/// is the photo at 1/8 size. Every decode scale starts from the same coefficients, and a
/// progressive file cut to its first scans keeps every DC scan, so any decode of the file gives
/// these very pixels, where the decoded pixels themselves differ with the scale.
enum JPEGBlockMeans {
    /// The captured image, or nil when the decoder caught none (another colour space, or a block it
    /// could not place). Chroma is taken from the block of its own grid that covers each pixel.
    static func image(from decoder: OpaquePointer) -> PixelBuffer? {
        var lumaGrid = thumbd_jpeg_block_grid()
        guard let luma = thumbd_jpeg_block_dc(decoder, 0, &lumaGrid), lumaGrid.width > 0, lumaGrid.height > 0 else { return nil }
        let (width, height) = (Int(lumaGrid.width), Int(lumaGrid.height))
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        // The mean of a block's samples is 128 plus an eighth of its dequantised DC coefficient.
        @inline(__always) func mean(_ dc: Int32) -> Float { 128 + Float(dc) / 8 }
        @inline(__always) func byte(_ value: Float) -> UInt8 { UInt8(min(255, max(0, value.rounded()))) }

        guard lumaGrid.components == 3 else {
            for i in 0..<(width * height) {
                let y = byte(mean(luma[i]))
                (pixels[4 * i], pixels[4 * i + 1], pixels[4 * i + 2]) = (y, y, y)
            }
            return PixelBuffer(width: width, height: height, hasAlpha: false, pixels: pixels)
        }
        var grids = [thumbd_jpeg_block_grid(), thumbd_jpeg_block_grid()]
        guard let first = thumbd_jpeg_block_dc(decoder, 1, &grids[0]), let second = thumbd_jpeg_block_dc(decoder, 2, &grids[1]),
              grids.allSatisfy({ $0.width > 0 && $0.height > 0 }) else { return nil }
        /// The block of `grid` that covers block (x, y) of the first component.
        func index(_ grid: thumbd_jpeg_block_grid, x: Int, y: Int) -> Int {
            let gx = min(Int(grid.width) - 1, x * Int(grid.h_samp_factor) / Int(lumaGrid.h_samp_factor))
            let gy = min(Int(grid.height) - 1, y * Int(grid.v_samp_factor) / Int(lumaGrid.v_samp_factor))
            return gy * Int(grid.width) + gx
        }
        for y in 0..<height {
            for x in 0..<width {
                let a = mean(luma[y * width + x])
                let b = mean(first[index(grids[0], x: x, y: y)]), c = mean(second[index(grids[1], x: x, y: y)])
                // JFIF's YCbCr, as libjpeg converts it; an Adobe RGB-coded file is already R, G, B.
                let rgb: (Float, Float, Float) = lumaGrid.is_rgb != 0 ? (a, b, c)
                    : (a + 1.402 * (c - 128), a - 0.344136 * (b - 128) - 0.714136 * (c - 128), a + 1.772 * (b - 128))
                let o = 4 * (y * width + x)
                (pixels[o], pixels[o + 1], pixels[o + 2]) = (byte(rgb.0), byte(rgb.1), byte(rgb.2))
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: false, pixels: pixels)
    }
}
