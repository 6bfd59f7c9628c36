#if arch(x86_64) && canImport(_Builtin_intrinsics)
import _Builtin_intrinsics.intel
#endif
import CResampleKernels

/// The horizontal pass: turns working row `row` into `outputs` Float pixels (premultiplied when
/// `Alpha` is `Premultiplied`), which the vertical pass then filters.
protocol HorizontalFilter {
    associatedtype Alpha: AlphaMode
    /// Working image size.
    var width: Int { get }
    var height: Int { get }
    /// Sets up for the horizontal weights (called once, before any `filter`).
    mutating func prepare(_ axis: FilterAxis)
    /// Filters working row `row` into `axis.outputs` pixels at `out`.
    mutating func filter(row: Int, into out: UnsafeMutablePointer<SIMD4<Float>>)
    /// Frees what `prepare` allocated.
    func release()
}

/// Float arithmetic on any row source: each needed row is converted (or box-reduced) to Float once,
/// then every output is a dot product over its window, four taps per step.
struct FloatHorizontal<Rows: RowSource>: HorizontalFilter {
    typealias Alpha = Rows.Alpha
    private var rows: Rows
    private var columns = 0..<0
    private var stride = 0
    private var outputs = 0
    private var row: UnsafeMutablePointer<SIMD4<Float>>?
    private var starts: UnsafeMutablePointer<Int>?
    /// The weights splatted to 4 lanes: one aligned load per tap, no shuffle.
    private var weights: UnsafeMutablePointer<SIMD4<Float>>?

    init(_ rows: Rows) { self.rows = rows }

    var width: Int { rows.width }
    var height: Int { rows.height }

    mutating func prepare(_ axis: FilterAxis) {
        precondition(row == nil, "prepared twice")
        columns = axis.lowest..<axis.highest
        stride = axis.stride
        outputs = axis.outputs
        // One converted source row, with zeroed room past its end for the padded tap reads.
        let row = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: columns.count + stride)
        row.initialize(repeating: .zero, count: columns.count + stride)
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: outputs)
        starts.initialize(from: axis.starts, count: outputs)
        let weights = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: axis.weights.count)
        for (i, w) in axis.weights.enumerated() { (weights + i).initialize(to: SIMD4(repeating: w)) }
        (self.row, self.starts, self.weights) = (row, starts, weights)
    }

    mutating func filter(row index: Int, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        rows.fill(row: index, columns: columns, into: row!)
        Resampler.horizontal(row!, firstColumn: columns.lowerBound, starts: starts!, weights: weights!,
                             stride: stride, outputs: outputs, into: out)
    }

    func release() {
        row?.deallocate()
        starts?.deallocate()
        weights?.deallocate()
    }
}

#if arch(x86_64) && canImport(_Builtin_intrinsics)
/// 16-bit fixed point straight from the opaque RGBA8 source, no conversion pass: weights are
/// quantised to 1/16384 (each window summing to exactly 16384, so flat areas stay exact) and
/// pmaddwd multiplies two taps of all four channels and adds them in one instruction. The four
/// Int32 sums per output are then scaled back to Float for the vertical pass. Baseline SSE2 only.
///
/// Measured on the H pass of 750 rows -> 200 outputs with 24 taps: 0.80 ms against 1.32 ms for the
/// Float pass with its row conversion. Where the CPU has AVX2 (`wide`), a C kernel takes eight taps
/// a step, the same integer sums in another order, so the output is the same bytes.
struct FixedPointOpaqueHorizontal: HorizontalFilter {
    typealias Alpha = Opaque
    static let one: Float = 16384
    /// Whether rows go through the AVX2 kernel: this CPU has it, unless the caller asked for SSE2 only.
    let wide: Bool

    private let image: SourceImage
    private var stride = 0
    private var outputs = 0
    private var starts: UnsafeMutablePointer<Int>?
    /// Per output, `stride / 2` tap pairs, each as the 8 Int16 lanes (w0, w1) x 4.
    private var weights: UnsafeMutableRawPointer?
    /// A copy of a row near the end of the image, padded so the last window's over-read stays inside.
    private var padded: UnsafeMutableRawPointer?
    /// Bytes from a row's start that the windows read (past the windows themselves, weighted 0).
    private var readBytes = 0

    init(image: SourceImage, wide: Bool) {
        self.image = image
        self.wide = wide && thumbd_resample_has_avx2() != 0
    }

    var width: Int { image.width }
    var height: Int { image.height }

    mutating func prepare(_ axis: FilterAxis) {
        precondition(starts == nil, "prepared twice")
        stride = axis.stride
        outputs = axis.outputs
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: outputs)
        starts.initialize(from: axis.starts, count: outputs)
        let pairs = stride / 2
        let weights = UnsafeMutableRawPointer.allocate(byteCount: outputs * pairs * 16, alignment: 16)
        var quantised = [Int](repeating: 0, count: stride)
        for i in 0..<outputs {
            var sum = 0, largest = 0
            for t in 0..<stride {
                let w = axis.weights[i * stride + t]
                quantised[t] = Int((w * Self.one).rounded())
                sum += quantised[t]
                if abs(w) > abs(axis.weights[i * stride + largest]) { largest = t }
            }
            quantised[largest] += Int(Self.one) - sum
            for p in 0..<pairs {
                let pair = (i * pairs + Self.slot(ofPair: p, pairs: pairs, wide: wide)) * 16
                for k in 0..<4 {
                    weights.storeBytes(of: Int16(quantised[2 * p]), toByteOffset: pair + 4 * k, as: Int16.self)
                    weights.storeBytes(of: Int16(quantised[2 * p + 1]), toByteOffset: pair + 4 * k + 2, as: Int16.self)
                }
            }
        }
        // The last group of four taps loads 16 bytes at its first pixel and 16 at the next.
        readBytes = ((axis.starts.max() ?? 0) + stride + 1) * 4
        let paddedBytes = max(readBytes, image.width * 4)
        let padded = UnsafeMutableRawPointer.allocate(byteCount: paddedBytes, alignment: 16)
        padded.initializeMemory(as: UInt8.self, repeating: 0, count: paddedBytes)
        (self.starts, self.weights, self.padded) = (starts, weights, padded)
    }

    /// Where tap pair `p` of an output's `pairs` goes: in order for SSE2; for the AVX2 kernel each
    /// group of four pairs is stored 0, 2, 1, 3 (its 256-bit lanes take pairs 0 and 2, then 1 and 3),
    /// and a last group of two in order.
    static func slot(ofPair p: Int, pairs: Int, wide: Bool) -> Int {
        guard wide, p < pairs / 4 * 4 else { return p }
        let group = p / 4 * 4
        return group + [0, 2, 1, 3][p - group]
    }

    func filter(row: Int, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        let rowBytes = image.width * 4
        var src = image.base + row * rowBytes
        // Reads past this row land in the next one (weighted 0); past the image they must not go.
        if row * rowBytes + readBytes > image.height * rowBytes {
            padded!.copyMemory(from: src, byteCount: rowBytes)
            src = UnsafeRawPointer(padded!)
        }
        if wide {
            thumbd_resample_fixed_row_avx2(src.assumingMemoryBound(to: UInt8.self), starts!,
                                           UnsafeRawPointer(weights!).assumingMemoryBound(to: Int16.self),
                                           stride, outputs, UnsafeMutableRawPointer(out).assumingMemoryBound(to: Float.self))
            return
        }
        let starts = starts!
        let zero = _mm_setzero_si128()
        let scale = SIMD4<Float>(repeating: 1 / Self.one)
        var w = UnsafeRawPointer(weights!)
        for i in 0..<outputs {
            var p = src + 4 * starts[i]
            var a0 = zero, a1 = zero
            var t = 0
            while t < stride {
                // Pixels p0...p3 and p1...p4; interleaving their bytes pairs p0 with p1 (low half)
                // and p2 with p3 (high half) channel by channel: r0 r1 g0 g1 b0 b1 a0 a1.
                let x = p.loadUnaligned(as: __m128i.self)
                let y = p.loadUnaligned(fromByteOffset: 4, as: __m128i.self)
                let p01 = _mm_unpacklo_epi8(_mm_unpacklo_epi8(x, y), zero)
                let p23 = _mm_unpacklo_epi8(_mm_unpackhi_epi8(x, y), zero)
                a0 = _mm_add_epi32(a0, _mm_madd_epi16(p01, w.load(as: __m128i.self)))
                a1 = _mm_add_epi32(a1, _mm_madd_epi16(p23, w.load(fromByteOffset: 16, as: __m128i.self)))
                p += 16
                w += 32
                t &+= 4
            }
            let sums = unsafeBitCast(_mm_add_epi32(a0, a1), to: SIMD4<Int32>.self)
            out[i] = SIMD4<Float>(sums) * scale
        }
    }

    func release() {
        starts?.deallocate()
        weights?.deallocate()
        padded?.deallocate()
    }
}
#endif
