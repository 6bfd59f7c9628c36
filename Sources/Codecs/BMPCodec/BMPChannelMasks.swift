import ImageCore

/// One colour channel of a 16-, 24- or 32-bit pixel: a run of contiguous bits, scaled to 8 bits.
struct BMPChannel: Equatable {
    let mask: UInt32
    /// Position of the lowest bit of the mask.
    let shift: Int
    /// Number of bits (0 when the channel is absent).
    let width: Int
    /// Value to the 8-bit sample, for channels up to 8 bits wide (index = the channel's value).
    private let table: [UInt8]

    /// Refuses a mask whose bits are not one contiguous run (`what` names the channel).
    init(mask: UInt32, _ what: String) throws(ImageError) {
        self.mask = mask
        let shift = mask == 0 ? 0 : mask.trailingZeroBitCount
        let width = mask.nonzeroBitCount
        let run = UInt64(mask) >> UInt64(shift)
        guard run & (run + 1) == 0 else {
            throw .corrupt("the BMP's \(what) mask 0x\(String(mask, radix: 16)) is not one contiguous run of bits")
        }
        (self.shift, self.width) = (shift, width)
        let maximum = width == 0 ? 0 : (1 << width) - 1
        table = width > 0 && width <= 8 ? (0...maximum).map { Self.scaled(UInt64($0), width: width) } : []
    }

    /// The channel in `pixel`, scaled to 0...255 by rounding value * 255 / max, as Chromium's BMP reader
    /// does (Pillow floors instead; Firefox repeats the bits: the three differ by at most one level).
    /// An absent channel reads `absent`.
    @inline(__always)
    func sample(_ pixel: UInt32, absent: UInt8) -> UInt8 {
        guard width > 0 else { return absent }
        let value = (pixel & mask) >> UInt32(shift)
        if width <= 8 { return table[Int(value)] }
        return Self.scaled(UInt64(value), width: width)
    }

    /// The byte of a little-endian pixel that holds this channel, when it is exactly one whole byte.
    var wholeByte: Int? { width == 8 && shift % 8 == 0 ? shift / 8 : nil }

    private static func scaled(_ value: UInt64, width: Int) -> UInt8 {
        let maximum = (UInt64(1) << UInt64(width)) - 1
        return UInt8((value * 255 + maximum / 2) / maximum)
    }
}

/// The four channel masks of a 16-, 24- or 32-bit BMP: the fixed ones of BI_RGB or those a
/// BI_BITFIELDS / BI_ALPHABITFIELDS file gives.
struct BMPChannelMasks: Equatable {
    let red: BMPChannel
    let green: BMPChannel
    let blue: BMPChannel
    let alpha: BMPChannel
    let bytesPerPixel: Int

    /// BI_RGB: 16 bits are X1R5G5B5, 24 bits B G R, 32 bits B G R X, and `alpha` the alpha mask a V3,
    /// V4 or V5 header gives (0 for older headers: the fourth byte of a 32-bit pixel is then padding).
    /// Windows documents the header's colour masks for BI_BITFIELDS only, but not its alpha mask;
    /// Chromium honours that mask for BI_RGB too, and so does thumbd.
    static func fixed(bitsPerPixel: Int, alpha: UInt32) throws(ImageError) -> BMPChannelMasks {
        bitsPerPixel == 16
            ? try BMPChannelMasks(red: 0x7C00, green: 0x03E0, blue: 0x001F, alpha: alpha, bitsPerPixel: 16)
            : try BMPChannelMasks(red: 0xFF_0000, green: 0xFF00, blue: 0xFF, alpha: alpha, bitsPerPixel: bitsPerPixel)
    }

    /// Refuses masks that are not contiguous, that overlap, or that leave no colour at all. Bits past
    /// the pixel's are dropped first: some V4 and V5 files declare an alpha mask of 0xFF000000 over
    /// 16- or 24-bit pixels (Chromium drops them too).
    init(red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32, bitsPerPixel: Int) throws(ImageError) {
        let pixelBits = UInt32(truncatingIfNeeded: (UInt64(1) << UInt64(bitsPerPixel)) - 1)
        let (red, green, blue, alpha) = (red & pixelBits, green & pixelBits, blue & pixelBits, alpha & pixelBits)
        let masks = [("red", red), ("green", green), ("blue", blue), ("alpha", alpha)]
        for i in 0..<masks.count {
            for j in (i + 1)..<masks.count where masks[i].1 & masks[j].1 != 0 {
                throw .corrupt("the BMP's \(masks[i].0) and \(masks[j].0) masks overlap")
            }
        }
        guard red | green | blue != 0 else { throw .corrupt("the BMP's colour masks are all zero") }
        self.red = try BMPChannel(mask: red, "red")
        self.green = try BMPChannel(mask: green, "green")
        self.blue = try BMPChannel(mask: blue, "blue")
        self.alpha = try BMPChannel(mask: alpha, "alpha")
        bytesPerPixel = bitsPerPixel / 8
    }

    var hasAlpha: Bool { alpha.width > 0 }
}
