import ImageCore

/// GIF files assembled in the tests (limits, damaged LZW, many frames), and a block walk of GIF
/// structure written apart from giflib, to know where a file's first frame ends.
enum GIFBuilder {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    /// Signature and logical screen descriptor, with a global colour table of 2^bits entries when given.
    static func header(width: Int, height: Int, globalColors: [(UInt8, UInt8, UInt8)]? = nil, bits: Int = 2,
                       version: String = "GIF89a") -> [UInt8] {
        var out = Array(version.utf8) + le16(width) + le16(height)
        out += [globalColors == nil ? 0x70 : UInt8(0xF0 | (bits - 1)), 0, 0]
        if let globalColors { out += table(globalColors, bits: bits) }
        return out
    }

    static func table(_ colors: [(UInt8, UInt8, UInt8)], bits: Int) -> [UInt8] {
        var out = colors.flatMap { [$0.0, $0.1, $0.2] }
        out += [UInt8](repeating: 0, count: 3 * (1 << bits) - out.count)
        return out
    }

    /// A Graphics Control Extension, with a transparent index when given.
    static func graphicsControl(transparent: Int? = nil) -> [UInt8] {
        [0x21, 0xF9, 4, transparent == nil ? 0 : 1, 10, 0, UInt8(transparent ?? 0), 0]
    }

    /// An image descriptor (and local table), then `lzw` (code size byte and sub-blocks) as given.
    static func frame(left: Int = 0, top: Int = 0, width: Int, height: Int, localColors: [(UInt8, UInt8, UInt8)]? = nil,
                      localBits: Int = 2, interlaced: Bool = false, lzw: [UInt8]) -> [UInt8] {
        var flags: UInt8 = interlaced ? 0x40 : 0
        if localColors != nil { flags |= 0x80 | UInt8(localBits - 1) }
        var out: [UInt8] = [0x2C] + le16(left) + le16(top) + le16(width) + le16(height) + [flags]
        if let localColors { out += table(localColors, bits: localBits) }
        return out + lzw
    }

    /// LZW data that never compresses: one code a pixel, a clear code before the table would need
    /// wider codes, an end code when `end` (leave it out to cut the data short of its end code).
    static func lzw(_ indices: [UInt8], codeSize: Int = 2, end: Bool = true) -> [UInt8] {
        let clear = 1 << codeSize, width = codeSize + 1, perClear = (1 << codeSize) - 2
        var codes: [Int] = []
        for start in stride(from: 0, to: indices.count, by: perClear) {
            codes.append(clear)
            codes += indices[start..<min(indices.count, start + perClear)].map(Int.init)
        }
        if end { codes.append(clear + 1) }
        var bits = 0, count = 0
        var packed: [UInt8] = []
        for code in codes {
            bits |= code << count
            count += width
            while count >= 8 {
                packed.append(UInt8(bits & 0xFF))
                bits >>= 8
                count -= 8
            }
        }
        if count > 0 { packed.append(UInt8(bits & 0xFF)) }
        return [UInt8(codeSize)] + subBlocks(packed)
    }

    /// Bytes as sub-blocks of up to 255, then the zero-length terminator.
    static func subBlocks(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 255) {
            let chunk = bytes[start..<min(bytes.count, start + 255)]
            out.append(UInt8(chunk.count))
            out += chunk
        }
        return out + [0]
    }

    static let trailer: [UInt8] = [0x3B]

    /// Where the first frame's image data ends (just past its block terminator), by walking the blocks;
    /// nil when the file does not hold it whole.
    static func firstFrameEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 13 else { return nil }
        var at = 13
        if data[10] & 0x80 != 0 { at += 3 << (Int(data[10] & 7) + 1) }
        func skipSubBlocks() -> Bool {
            while at < data.count {
                let length = Int(data[at])
                at += 1 + length
                if length == 0 { return at <= data.count }
            }
            return false
        }
        while at < data.count {
            switch data[at] {
            case 0x21:
                at += 2
                guard skipSubBlocks() else { return nil }
            case 0x2C:
                guard at + 10 <= data.count else { return nil }
                let flags = data[at + 9]
                at += 10
                if flags & 0x80 != 0 { at += 3 << (Int(flags & 7) + 1) }
                at += 1  // LZW code size
                return skipSubBlocks() ? at : nil
            default:
                return nil
            }
        }
        return nil
    }
}
