import CResampleKernels
import ImageCore

/// A source region in pixels of the source image; may be fractional.
public struct SourceRegion: Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
}

/// Separable Lanczos-3 resampling of RGBA8 images.
///
/// A fractional source region is resampled straight to the output size, so a crop and a resize are
/// one pass. Output pixel `i` is centred on source coordinate
/// `region.x + (i + 0.5) * region.width / width - 0.5`; taps past the image edges repeat the edge
/// pixel (taps outside the region but inside the image are used as they are). Downscaling widens the
/// kernel by the scale factor. Images with alpha are filtered premultiplied, so transparent pixels
/// lend no colour to their neighbours.
///
/// Work is horizontal pass first (each needed source row is filtered into a Float intermediate of
/// output width: opaque rows straight from their bytes in 16-bit fixed point on x86-64, others
/// converted to Float once), then a vertical pass over that Float intermediate; both use per-axis
/// weight tables computed once. With a cover or contain region both axes shrink by the same
/// factor, so neither pass order saves work; horizontal first reads the source once, row by row.
/// For reductions of 6x and more a box filter first averages whole k x k blocks (exact area),
/// leaving Lanczos at least 3x to reduce, which keeps a 4000x3000 -> 200x200 resize cheap; see
/// `Prereduction`.
public enum Resampler {
    /// Whether very large reductions may average k x k blocks before the Lanczos pass.
    public enum Prereduction: Sendable, Equatable {
        /// `.box(lanczosFactor: 3)`. Against pure Lanczos the SSIM (luma and RGB) was 0.998 at worst
        /// over 172 reductions of 6x to 102x of 33 photos (`ResizeBenchmark.prereductionQuality`);
        /// `lanczosFactor: 2` fell to 0.993, so 3 it is.
        case automatic
        /// Pure Lanczos-3 whatever the factor.
        case none
        /// Box-average by the integer factor k = floor(scale / lanczosFactor) on each axis where that
        /// is 2 or more, so that Lanczos still reduces by at least `lanczosFactor`.
        case box(lanczosFactor: Double)

        /// The box factor for one axis reduced by `scale` (1: no box pass).
        public func boxFactor(_ scale: Double) -> Int {
            let residual: Double = switch self {
            case .automatic: 3
            case .none: .infinity
            case .box(let f): max(1, f)
            }
            guard scale >= 2 * residual else { return 1 }
            // 255 keeps the integer block sums in range (see the box row sources).
            return Int(min(scale / residual, 255))
        }
    }

    /// The arithmetic of the horizontal pass.
    public enum Arithmetic: Sendable, Equatable {
        /// Opaque images without box pre-reduction are filtered horizontally in 16-bit fixed point
        /// (weights in 1/16384) where the CPU offers it (x86-64: SSE2 pmaddwd, eight taps a step with
        /// AVX2), straight from the bytes; everything else in Float. About 1.5x faster for the
        /// common JPEG thumbnail.
        case automatic
        /// The fixed-point pass without AVX2 in either pass: the same bytes as `automatic`, for
        /// comparing the two.
        case baselineFixedPoint
        /// Float throughout, without AVX2.
        case float
    }

    /// Whether this CPU runs the vertical pass's AVX2 kernel (two pixels a register).
    private static let verticalAVX2 = thumbd_resample_has_avx2() != 0

    /// The Lanczos lobe count (`a`).
    public static let lobes = 3

    public static func resize(_ source: PixelBuffer, region: SourceRegion? = nil, width: Int, height: Int) -> PixelBuffer {
        resize(source, region: region, width: width, height: height, prereduction: .automatic, arithmetic: .automatic)
    }

    /// `resize`, choosing whether very large reductions start with a box filter and which
    /// arithmetic the horizontal pass uses.
    public static func resize(_ source: PixelBuffer, region: SourceRegion? = nil, width: Int, height: Int,
                              prereduction: Prereduction, arithmetic: Arithmetic = .automatic) -> PixelBuffer {
        precondition(width > 0 && height > 0, "resize to an empty size")
        let r = region ?? SourceRegion(x: 0, y: 0, width: Double(source.width), height: Double(source.height))
        precondition(r.width > 0 && r.height > 0 && r.width.isFinite && r.height.isFinite && r.x.isFinite && r.y.isFinite,
                     "resize from an empty or non-finite region")
        let wideVertical = arithmetic == .automatic && verticalAVX2
        let kx = prereduction.boxFactor(r.width / Double(width))
        let ky = prereduction.boxFactor(r.height / Double(height))

        let output = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            source.pixels.withUnsafeBytes { src in
                let image = SourceImage(base: src.baseAddress!, width: source.width, height: source.height)
                let out = UnsafeMutableRawPointer(buffer.baseAddress!)
                if kx == 1 && ky == 1 {
                    if source.hasAlpha {
                        run(FloatHorizontal(SourceRows<Premultiplied>(image: image)), region: r, width: width, height: height, into: out,
                            wideVertical: wideVertical)
                    } else {
                        #if arch(x86_64) && canImport(_Builtin_intrinsics)
                        if arithmetic != .float {
                            run(FixedPointOpaqueHorizontal(image: image, wide: arithmetic == .automatic),
                                region: r, width: width, height: height, into: out, wideVertical: wideVertical)
                            return
                        }
                        #endif
                        run(FloatHorizontal(SourceRows<Opaque>(image: image)), region: r, width: width, height: height, into: out,
                            wideVertical: wideVertical)
                    }
                } else {
                    // The same region in the coordinates of the box-reduced image.
                    let reduced = SourceRegion(x: r.x / Double(kx), y: r.y / Double(ky),
                                               width: r.width / Double(kx), height: r.height / Double(ky))
                    if source.hasAlpha {
                        let rows = BoxPremultipliedRows(image: image, kx: kx, ky: ky)
                        defer { rows.release() }
                        run(FloatHorizontal(rows), region: reduced, width: width, height: height, into: out, wideVertical: wideVertical)
                    } else {
                        let rows = BoxOpaqueRows(image: image, kx: kx, ky: ky)
                        defer { rows.release() }
                        run(FloatHorizontal(rows), region: reduced, width: width, height: height, into: out, wideVertical: wideVertical)
                    }
                }
            }
            initialized = width * height * 4
        }
        return PixelBuffer(width: width, height: height, hasAlpha: source.hasAlpha, pixels: output)
    }

    // MARK: - The two passes

    /// Resamples `region` of the working image `filter` reads to `width` x `height`, writing RGBA8 to
    /// `out`: every source row the vertical pass needs goes through the horizontal filter into a
    /// Float intermediate of output width, which the vertical pass then reduces.
    private static func run<Filter: HorizontalFilter>(_ filter: Filter, region: SourceRegion, width: Int, height: Int,
                                                      into out: UnsafeMutableRawPointer, wideVertical: Bool) {
        let fx = FilterAxis(sourceLength: filter.width, regionOrigin: region.x, regionLength: region.width,
                            outputLength: width, lobes: Double(lobes))
        let fy = FilterAxis(sourceLength: filter.height, regionOrigin: region.y, regionLength: region.height,
                            outputLength: height, lobes: Double(lobes))
        let rowRange = fy.lowest..<fy.highest
        let intermediate = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: rowRange.count * width)
        defer { intermediate.deallocate() }

        var filter = filter
        filter.prepare(fx)
        defer { filter.release() }
        for row in rowRange {
            filter.filter(row: row, into: intermediate + (row - rowRange.lowerBound) * width)
        }
        fy.starts.withUnsafeBufferPointer { starts in
            fy.weights.withUnsafeBufferPointer { weights in
                vertical(intermediate, firstRow: rowRange.lowerBound, width: width, height: height,
                         starts: starts.baseAddress!, weights: weights.baseAddress!, count: fy.count, stride: fy.stride,
                         into: out, store: Filter.Alpha.self, wide: wideVertical)
            }
        }
    }

    /// One row: output `i` = sum over `stride` taps of `row[starts[i] - firstColumn + t] * weights[i * stride + t]`.
    /// Reads past the real window hit zero weights (and the row's zeroed padding).
    @inline(__always)
    static func horizontal(_ row: UnsafePointer<SIMD4<Float>>, firstColumn: Int, starts: UnsafePointer<Int>,
                                   weights: UnsafePointer<SIMD4<Float>>, stride: Int, outputs: Int,
                                   into out: UnsafeMutablePointer<SIMD4<Float>>) {
        var w = weights
        for i in 0..<outputs {
            var p = row + (starts[i] - firstColumn)
            // Four accumulators hide the add latency; stride is a multiple of 4.
            var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
            var t = 0
            while t < stride {
                a0 += p[0] * w[0]
                a1 += p[1] * w[1]
                a2 += p[2] * w[2]
                a3 += p[3] * w[3]
                p += 4
                w += 4
                t &+= 4
            }
            out[i] = (a0 + a1) + (a2 + a3)
        }
    }

    /// Filters the Float intermediate (its row 0 is source row `firstRow`) down the columns and
    /// stores RGBA8.
    @inline(__always)
    private static func vertical<Store: AlphaMode>(_ intermediate: UnsafePointer<SIMD4<Float>>, firstRow: Int,
                                                   width: Int, height: Int,
                                                   starts: UnsafePointer<Int>, weights: UnsafePointer<Float>,
                                                   count: Int, stride: Int,
                                                   into out: UnsafeMutableRawPointer, store: Store.Type, wide: Bool) {
        var dst = out
        let avx2 = wide && Store.self == Opaque.self
        for y in 0..<height {
            let base = intermediate + (starts[y] - firstRow) * width
            let w = weights + y * stride
            var x = 0
            if avx2 {
                // Eight pixels a step in C, the same arithmetic lane by lane; the rest below.
                x = thumbd_resample_vertical_row_avx2(UnsafeRawPointer(base).assumingMemoryBound(to: Float.self), width, w, count,
                                                      dst.assumingMemoryBound(to: UInt8.self))
                dst += 4 * x
            }
            // Four neighbouring pixels at a time: independent accumulators, one weight load per tap.
            while x + 4 <= width {
                var a0 = SIMD4<Float>.zero, a1 = SIMD4<Float>.zero, a2 = SIMD4<Float>.zero, a3 = SIMD4<Float>.zero
                var p = base + x
                for t in 0..<count {
                    let wt = w[t]
                    a0 += p[0] * wt
                    a1 += p[1] * wt
                    a2 += p[2] * wt
                    a3 += p[3] * wt
                    p += width
                }
                dst.storeBytes(of: Store.pack(a0), toByteOffset: 0, as: UInt32.self)
                dst.storeBytes(of: Store.pack(a1), toByteOffset: 4, as: UInt32.self)
                dst.storeBytes(of: Store.pack(a2), toByteOffset: 8, as: UInt32.self)
                dst.storeBytes(of: Store.pack(a3), toByteOffset: 12, as: UInt32.self)
                dst += 16
                x += 4
            }
            while x < width {
                var a0 = SIMD4<Float>.zero
                var p = base + x
                for t in 0..<count {
                    a0 += p[0] * w[t]
                    p += width
                }
                dst.storeBytes(of: Store.pack(a0), as: UInt32.self)
                dst += 4
                x += 1
            }
        }
    }
}

// MARK: - Alpha handling

/// How pixels enter the filter (as Floats) and leave it (packed to RGBA8 bytes in memory order).
protocol AlphaMode {
    static func load(_ rgba: UInt32) -> SIMD4<Float>
    static func pack(_ value: SIMD4<Float>) -> UInt32
}

/// Rounds four values to integers and packs them, saturated to 0...255, as RGBA8 bytes in memory
/// order. Adding 1.5 * 2^23 leaves round-to-nearest(v) in the low mantissa bits (exact for
/// |v| < 2^22, far beyond any filter output); the saturating narrow becomes packssdw + packuswb.
@inline(__always)
func packRounded(_ v: SIMD4<Float>) -> UInt32 {
    let shifted = v + SIMD4(repeating: 12_582_912)
    var i = unsafeBitCast(shifted, to: SIMD4<Int32>.self) &- 0x4B40_0000
    i = i.replacing(with: 0, where: i .< 0)
    i = i.replacing(with: 255, where: i .> 255)
    return unsafeBitCast(SIMD4<UInt8>(truncatingIfNeeded: i), to: UInt32.self)
}

/// Four bytes (RGBA in memory order; loaded as a little-endian UInt32, as on every Swift Linux
/// target) as four Floats.
@inline(__always)
func floats(_ rgba: UInt32) -> SIMD4<Float> {
    SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(rgba, to: SIMD4<UInt8>.self)))
}

/// All pixels opaque: the colour is filtered as it is and the output alpha is 255.
enum Opaque: AlphaMode {
    @inline(__always)
    static func load(_ rgba: UInt32) -> SIMD4<Float> { floats(rgba) }

    @inline(__always)
    static func pack(_ value: SIMD4<Float>) -> UInt32 {
        packRounded(value) | 0xFF00_0000
    }
}

/// Pixels are filtered as (r*a, g*a, b*a, 255*a): premultiplied, with all four channels scaled by
/// 255 alike (that form needs one multiply per pixel: the pixel with alpha set to 255, times a).
/// On the way out the colour is divided by the filtered alpha.
enum Premultiplied: AlphaMode {
    @inline(__always)
    static func load(_ rgba: UInt32) -> SIMD4<Float> { premultiply(rgba) }

    @inline(__always)
    static func premultiply(_ rgba: UInt32) -> SIMD4<Float> {
        floats(rgba | 0xFF00_0000) * Float(rgba >> 24)
    }

    @inline(__always)
    static func pack(_ value: SIMD4<Float>) -> UInt32 {
        let alpha255 = value[3]  // 255 * alpha
        // Alpha that rounds to 0 carries no colour.
        guard alpha255 >= 0.5 * 255 else { return 0 }
        let f = 255 / alpha255
        return packRounded(value * SIMD4(f, f, f, 1 / 255))
    }
}

// MARK: - Row sources

struct SourceImage {
    let base: UnsafeRawPointer
    let width: Int
    let height: Int
}

/// Delivers rows of the (possibly box-reduced) working image as Float pixels, premultiplied when
/// `Alpha` is `Premultiplied`.
protocol RowSource {
    associatedtype Alpha: AlphaMode
    /// Working image size.
    var width: Int { get }
    var height: Int { get }
    /// Writes working pixels `columns` of working row `row` to `out[0 ..< columns.count]`.
    mutating func fill(row: Int, columns: Range<Int>, into out: UnsafeMutablePointer<SIMD4<Float>>)
}

/// The source pixels themselves, as `Alpha` loads them (premultiplied or not).
struct SourceRows<Alpha: AlphaMode>: RowSource {
    let image: SourceImage
    var width: Int { image.width }
    var height: Int { image.height }

    @inline(__always)
    mutating func fill(row: Int, columns: Range<Int>, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        let src = image.base + (row * image.width + columns.lowerBound) * 4
        for k in 0..<columns.count {
            out[k] = Alpha.load(src.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))
        }
    }
}

/// Exact-area box reduction by integer factors: working pixel (x, y) is the mean of source pixels
/// `x*kx ..< (x+1)*kx` by `y*ky ..< (y+1)*ky` (fewer at the right and bottom edges). Opaque pixels
/// are summed down the rows as UInt16 (ky <= 257 keeps 255 * ky in range), 16 bytes at a time.
struct BoxOpaqueRows: RowSource {
    typealias Alpha = Opaque
    let image: SourceImage
    let kx: Int
    let ky: Int
    let width: Int
    let height: Int
    /// Column sums of up to `ky` source rows, one UInt16 per source byte, padded to 16 bytes.
    private let sums: UnsafeMutablePointer<SIMD16<UInt16>>
    private let sumVectors: Int

    init(image: SourceImage, kx: Int, ky: Int) {
        precondition(ky <= 257 && kx >= 1 && ky >= 1)
        self.image = image
        self.kx = kx
        self.ky = ky
        width = (image.width + kx - 1) / kx
        height = (image.height + ky - 1) / ky
        sumVectors = (image.width * 4 + 15) / 16 + 1
        sums = .allocate(capacity: sumVectors)
        sums.initialize(repeating: .zero, count: sumVectors)
    }

    func release() { sums.deallocate() }

    @inline(__always)
    mutating func fill(row: Int, columns: Range<Int>, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        let firstColumn = columns.lowerBound * kx
        let endColumn = min(image.width, columns.upperBound * kx)
        let firstRow = row * ky
        let endRow = min(image.height, firstRow + ky)
        let bytes = (endColumn - firstColumn) * 4
        let vectors = bytes / 16
        let tail = bytes - vectors * 16
        let acc = sums
        acc.update(repeating: .zero, count: vectors + 1)
        for y in firstRow..<endRow {
            let src = image.base + (y * image.width + firstColumn) * 4
            for v in 0..<vectors {
                acc[v] &+= SIMD16<UInt16>(truncatingIfNeeded: src.loadUnaligned(fromByteOffset: 16 * v, as: SIMD16<UInt8>.self))
            }
            if tail > 0 {
                // The last few bytes of the row, without reading past it.
                let last = UnsafeMutableRawPointer(acc + vectors).assumingMemoryBound(to: UInt16.self)
                let s = src + vectors * 16
                for b in 0..<tail { last[b] &+= UInt16(s.load(fromByteOffset: b, as: UInt8.self)) }
            }
        }
        let lanes = UnsafeRawPointer(acc)
        let rowsSummed = Float(endRow - firstRow)
        let n = endColumn - firstColumn
        var o = out
        var c = 0
        while c < n {
            let end = min(n, c + kx)
            var s = SIMD4<Float>.zero
            for k in c..<end {
                let v = lanes.loadUnaligned(fromByteOffset: 8 * k, as: SIMD4<UInt16>.self)
                s += SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v))
            }
            o.pointee = s * (1 / (rowsSummed * Float(end - c)))
            o += 1
            c = end
        }
    }
}

/// The box reduction for images with alpha: premultiplied in integers (c * a and 255 * a fit
/// UInt16) and summed down the rows as UInt32, two pixels at a time.
struct BoxPremultipliedRows: RowSource {
    typealias Alpha = Premultiplied
    let image: SourceImage
    let kx: Int
    let ky: Int
    let width: Int
    let height: Int
    /// Column sums, one SIMD4<UInt32> per source pixel, plus one spare.
    private let sums: UnsafeMutablePointer<SIMD4<UInt32>>

    init(image: SourceImage, kx: Int, ky: Int) {
        // 255 * 255 * 65025 < 2^32: a whole block's premultiplied sum fits UInt32.
        precondition(kx >= 1 && ky >= 1 && kx <= 255 && ky <= 255)
        self.image = image
        self.kx = kx
        self.ky = ky
        width = (image.width + kx - 1) / kx
        height = (image.height + ky - 1) / ky
        sums = .allocate(capacity: image.width + 2)
        sums.initialize(repeating: .zero, count: image.width + 2)
    }

    func release() { sums.deallocate() }

    @inline(__always)
    mutating func fill(row: Int, columns: Range<Int>, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        let firstColumn = columns.lowerBound * kx
        let endColumn = min(image.width, columns.upperBound * kx)
        let firstRow = row * ky
        let endRow = min(image.height, firstRow + ky)
        let n = endColumn - firstColumn
        let pairs = n / 2
        let acc = sums
        acc.update(repeating: .zero, count: n + 1)
        let opaqueAlpha = SIMD8<UInt16>(0, 0, 0, 255, 0, 0, 0, 255)
        for y in firstRow..<endRow {
            let src = image.base + (y * image.width + firstColumn) * 4
            for p in 0..<pairs {
                let w = SIMD8<UInt16>(truncatingIfNeeded: src.loadUnaligned(fromByteOffset: 8 * p, as: SIMD8<UInt8>.self))
                // (a, a, a, 255) per pixel: pshuflw/pshufhw, then the alpha lanes forced to 255.
                let m = SIMD8<UInt16>(w[3], w[3], w[3], 0, w[7], w[7], w[7], 0) | opaqueAlpha
                let product = w &* m
                acc[2 * p] &+= SIMD4<UInt32>(truncatingIfNeeded: product.lowHalf)
                acc[2 * p + 1] &+= SIMD4<UInt32>(truncatingIfNeeded: product.highHalf)
            }
            if n & 1 == 1 {
                let px = SIMD4<UInt32>(truncatingIfNeeded: src.loadUnaligned(fromByteOffset: 4 * (n - 1), as: SIMD4<UInt8>.self))
                acc[n - 1] &+= px &* SIMD4(px[3], px[3], px[3], 255)
            }
        }
        let rowsSummed = Float(endRow - firstRow)
        var o = out
        var c = 0
        while c < n {
            let end = min(n, c + kx)
            var s = SIMD4<Float>.zero
            for k in c..<end {
                s += SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: acc[k]))
            }
            o.pointee = s * (1 / (rowsSummed * Float(end - c)))
            o += 1
            c = end
        }
    }
}
