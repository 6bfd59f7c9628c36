/// Spreads one decoded row of packed samples into 16-bit values, one a sample.
///
/// libtiff hands decoded rows back as stored: 1-, 2- and 4-bit samples packed from the most
/// significant bit (it has already undone FillOrder 2), 8-bit samples as bytes, 16-bit samples in
/// the machine's byte order (it swaps them from the file's). Values keep their stored range
/// (0 ... 2^bits - 1); `TIFFPixelConverter` scales them.
enum TIFFSampleUnpacker {
    /// Writes `count` samples of `row` to `destination[0]`, `destination[stride]`, ...: stride 1
    /// for a row of contiguous samples, the samples a pixel for one plane of separate planes.
    static func unpack(row: UnsafeRawPointer, bits: Int, count: Int,
                       into destination: UnsafeMutablePointer<UInt16>, stride: Int) {
        switch bits {
        case 8:
            let bytes = row.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { destination[i * stride] = UInt16(bytes[i]) }
        case 16:
            for i in 0..<count { destination[i * stride] = row.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self) }
        default:
            let bytes = row.assumingMemoryBound(to: UInt8.self)
            let mask = UInt16((1 << bits) - 1)
            for i in 0..<count {
                let bit = i * bits
                let shift = 8 - bits - (bit & 7)
                destination[i * stride] = UInt16(bytes[bit >> 3] >> shift) & mask
            }
        }
    }
}
