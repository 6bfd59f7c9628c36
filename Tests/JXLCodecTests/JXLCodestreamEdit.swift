import Testing

/// Surgery on a bare JPEG XL codestream's SizeHeader, for files that claim a size they do not hold.
///
/// The codestream is a bit stream, least significant bit first: after the FF 0A signature comes the
/// SizeHeader (ISO/IEC 18181-1, as libjxl reads it): `small` (1 bit); if small, ysize / 8 - 1 in 5
/// bits, else ysize - 1 as a U32 (a 2-bit selector, then 9, 13, 18 or 30 bits); `ratio` (3 bits);
/// if ratio is 0, xsize the same way as ysize. Everything after it (the image metadata) is copied
/// bit for bit behind the new header, so libjxl reads the same metadata and the new size. The
/// frames behind are shifted out of byte alignment: they no longer decode, which these files
/// need not do, as they must be refused at the basic info.
enum JXLCodestreamEdit {
    struct BitReader {
        let bytes: [UInt8]
        var position = 0

        mutating func read(_ count: Int) throws -> Int {
            var value = 0
            for i in 0..<count {
                let byte = position >> 3
                guard byte < bytes.count else { throw Tools.Failure("the codestream ends inside its SizeHeader") }
                value |= Int(bytes[byte] >> (position & 7) & 1) << i
                position += 1
            }
            return value
        }

        mutating func u32() throws -> Int {
            let widths = [9, 13, 18, 30]
            return try read(widths[try read(2)])
        }
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var count = 0

        mutating func write(_ value: Int, _ width: Int) {
            for i in 0..<width {
                if count & 7 == 0 { bytes.append(0) }
                bytes[bytes.count - 1] |= UInt8(value >> i & 1) << (count & 7)
                count += 1
            }
        }

        /// ysize - 1 or xsize - 1 with the smallest selector that holds it.
        mutating func u32(_ value: Int) {
            let widths = [9, 13, 18, 30]
            let selector = widths.firstIndex { value < 1 << $0 }!
            write(selector, 2)
            write(value, widths[selector])
        }
    }

    /// The width for each `ratio` 1...7 (1:1, 12:10, 4:3, 3:2, 16:9, 5:4, 2:1), as numerator and
    /// denominator of height.
    static let ratios = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]

    /// The size a bare codestream's header declares, and where the header ends (in bits after FF 0A).
    static func size(_ codestream: [UInt8]) throws -> (width: Int, height: Int, headerBits: Int) {
        guard codestream.count > 2, codestream[0] == 0xFF, codestream[1] == 0x0A else { throw Tools.Failure("not a bare codestream") }
        var reader = BitReader(bytes: Array(codestream.dropFirst(2)))
        let small = try reader.read(1) == 1
        let height = small ? (try reader.read(5) + 1) * 8 : try reader.u32() + 1
        let ratio = try reader.read(3)
        guard ratio == 0 else {
            let (numerator, denominator) = ratios[ratio - 1]
            return (height * numerator / denominator, height, reader.position)
        }
        let width = small ? (try reader.read(5) + 1) * 8 : try reader.u32() + 1
        return (width, height, reader.position)
    }

    /// `codestream` with its SizeHeader replaced by one declaring `width` x `height` (up to 2^30 a side).
    static func resized(_ codestream: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        let old = try size(codestream)
        var writer = BitWriter()
        writer.write(0, 1)  // not small
        writer.u32(height - 1)
        writer.write(0, 3)  // ratio 0: the width follows
        writer.u32(width - 1)
        var reader = BitReader(bytes: Array(codestream.dropFirst(2)), position: old.headerBits)
        while reader.position < reader.bytes.count * 8 { writer.write(try reader.read(1), 1) }
        return [0xFF, 0x0A] + writer.bytes
    }
}
