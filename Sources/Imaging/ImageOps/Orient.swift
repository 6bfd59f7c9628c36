import ImageCore

extension Orientation {
    /// The orientation that undoes this one: `image.oriented(o).oriented(o.inverse) == image`.
    public var inverse: Orientation {
        switch self {
        case .right: .left
        case .left: .right
        default: self
        }
    }
}

extension PixelBuffer {
    /// The upright image: stored pixels turned as the EXIF orientation says
    /// (2 mirror left-right, 3 rotate 180°, 4 mirror top-bottom, 5 transpose, 6 rotate 90° clockwise,
    /// 7 transverse, 8 rotate 90° counter-clockwise). Width and height trade places for 5–8.
    public func oriented(_ orientation: Orientation) -> PixelBuffer {
        if orientation == .up { return self }
        let w = width, h = height
        let (outW, outH) = orientation.uprightSize(width: w, height: h)
        // Upright pixel (x, y) is stored pixel index `origin + x * dx + y * dy`.
        let (origin, dx, dy): (Int, Int, Int) = switch orientation {
        case .up: (0, 1, w)
        case .upMirrored: (w - 1, -1, w)
        case .down: (w * h - 1, -1, -w)
        case .downMirrored: ((h - 1) * w, 1, -w)
        case .leftMirrored: (0, w, 1)
        case .right: ((h - 1) * w, -w, 1)
        case .rightMirrored: ((h - 1) * w + w - 1, -w, -1)
        case .left: (w - 1, w, -1)
        }
        let count = w * h
        let out = [UInt8](unsafeUninitializedCapacity: count * 4) { buffer, initialized in
            pixels.withUnsafeBytes { raw in
                let src = raw.baseAddress!
                let dst = UnsafeMutableRawPointer(buffer.baseAddress!)
                if orientation.swapsDimensions {
                    Self.remapTiled(src, origin: origin, dx: dx, dy: dy, into: dst, width: outW, height: outH)
                } else {
                    Self.remapRows(src, origin: origin, dx: dx, dy: dy, into: dst, width: outW, height: outH)
                }
            }
            initialized = count * 4
        }
        return PixelBuffer(width: outW, height: outH, hasAlpha: hasAlpha, pixels: out)
    }

    /// Flips: each output row is one source row, read forwards or backwards.
    private static func remapRows(_ src: UnsafeRawPointer, origin: Int, dx: Int, dy: Int,
                                  into dst: UnsafeMutableRawPointer, width: Int, height: Int) {
        for y in 0..<height {
            let s = src + 4 * (origin + y * dy)
            let d = dst + 4 * (y * width)
            if dx == 1 {
                d.copyMemory(from: s, byteCount: 4 * width)
            } else {
                for x in 0..<width {
                    d.storeBytes(of: s.loadUnaligned(fromByteOffset: -4 * x, as: UInt32.self), toByteOffset: 4 * x, as: UInt32.self)
                }
            }
        }
    }

    /// Quarter turns: walk the output in square tiles so both the reads (down a source column)
    /// and the writes stay within a few cache lines.
    private static func remapTiled(_ src: UnsafeRawPointer, origin: Int, dx: Int, dy: Int,
                                   into dst: UnsafeMutableRawPointer, width: Int, height: Int) {
        let tile = 32
        var ty = 0
        while ty < height {
            let yEnd = min(height, ty + tile)
            var tx = 0
            while tx < width {
                let xEnd = min(width, tx + tile)
                for y in ty..<yEnd {
                    let d = dst + 4 * (y * width)
                    var s = src + 4 * (origin + tx * dx + y * dy)
                    for x in tx..<xEnd {
                        d.storeBytes(of: s.loadUnaligned(as: UInt32.self), toByteOffset: 4 * x, as: UInt32.self)
                        s += 4 * dx
                    }
                }
                tx = xEnd
            }
            ty = yEnd
        }
    }
}
