import ImageCore

/// The box blur on pixels, run a few times over an opaque image: three passes of a box of radius r
/// weigh the neighbours nearly as a Gaussian of sigma sqrt(r (r + 1)) does, at the cost of running
/// sums (a few additions per pixel whatever the radius) instead of a kernel as wide as the blur.
extension BoxBlur {
    /// Blurs R, G and B of `image` in place (alpha is left as it is: the caller flattens first).
    /// Pixels past an edge repeat the edge pixel, so the edges keep their own colour.
    static func blur(_ image: inout PixelBuffer, radius: Int, passes: Int = 3) {
        precondition(radius >= 0 && passes >= 0, "a blur needs a radius and a pass count of 0 or more")
        guard radius > 0 else { return }
        let (width, height) = (image.width, image.height)
        let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: max(width, height) * 3)
        defer { scratch.deallocate() }
        image.pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for _ in 0..<passes {
                for y in 0..<height {
                    blurLine(base + y * width * PixelBuffer.bytesPerPixel, count: width,
                             step: PixelBuffer.bytesPerPixel, radius: radius, scratch: scratch)
                }
                for x in 0..<width {
                    blurLine(base + x * PixelBuffer.bytesPerPixel, count: height,
                             step: width * PixelBuffer.bytesPerPixel, radius: radius, scratch: scratch)
                }
            }
        }
    }

    /// One row or column, `count` pixels `step` bytes apart: each becomes the mean of the
    /// 2 radius + 1 around it. The line is copied out first, so the sums read unblurred values.
    @inline(__always)
    private static func blurLine(_ line: UnsafeMutablePointer<UInt8>, count: Int, step: Int, radius: Int,
                                 scratch: UnsafeMutablePointer<Int32>) {
        for i in 0..<count {
            let p = line + i * step
            scratch[i * 3] = Int32(p[0]); scratch[i * 3 + 1] = Int32(p[1]); scratch[i * 3 + 2] = Int32(p[2])
        }
        let last = count - 1
        let span = Int32(2 * radius + 1), half = span / 2
        var sums: (Int32, Int32, Int32) = (0, 0, 0)
        for k in -radius...radius {
            let j = min(max(k, 0), last) * 3
            sums.0 += scratch[j]; sums.1 += scratch[j + 1]; sums.2 += scratch[j + 2]
        }
        for i in 0..<count {
            let p = line + i * step
            p[0] = UInt8((sums.0 + half) / span); p[1] = UInt8((sums.1 + half) / span); p[2] = UInt8((sums.2 + half) / span)
            let entering = min(i + radius + 1, last) * 3, leaving = max(i - radius, 0) * 3
            sums.0 += scratch[entering] - scratch[leaving]
            sums.1 += scratch[entering + 1] - scratch[leaving + 1]
            sums.2 += scratch[entering + 2] - scratch[leaving + 2]
        }
    }
}
