/// The coefficients' storage: one 4-bit value each, the first of a pair in the low nibble.
struct NibbleWriter {
    private(set) var bytes: [UInt8]
    private let start: Int
    private var written = 0

    /// Continues after `prefix`, growing the array a byte per two nibbles.
    init(after prefix: [UInt8]) {
        bytes = prefix
        start = prefix.count
    }

    mutating func append(_ value: Int) {
        let nibble = UInt8(value & 15)
        if written % 2 == 0 {
            bytes.append(nibble)
        } else {
            bytes[start + written / 2] |= nibble << 4
        }
        written += 1
    }
}

struct NibbleReader {
    private let bytes: [UInt8]
    private var position: Int

    /// `start` is a byte index; the caller has checked that every nibble it will read is there.
    init(_ bytes: [UInt8], start: Int) {
        self.bytes = bytes
        position = start * 2
    }

    /// `nil` rather than a trap if the caller's count was wrong.
    mutating func next() -> Int? {
        let byteIndex = position / 2
        guard byteIndex < bytes.count else { return nil }
        let byte = bytes[byteIndex]
        let value = position % 2 == 0 ? byte & 15 : byte >> 4
        position += 1
        return Int(value)
    }
}
