import ImageCore

/// Turns unpacked samples (`TIFFSampleUnpacker`) into thumbd's 4-byte pixels: RGBA, not
/// premultiplied, or for CMYK the inks C, M, Y, K (0 no ink) for `ColorManagement` to convert.
///
/// - Depths: 1, 2 and 4 bits scale to 0...255 by bit replication (a 4-bit 15 is 255); 16 bits
///   round to the nearest 8-bit level (v / 257, rounded).
/// - Grey MinIsWhite is inverted; grey is copied to R, G and B.
/// - Palette: the colour map's 16-bit entries keep their high byte, which is right for both ways
///   writers scale 8-bit colours (v * 257, and Pillow's v * 256). A map whose entries are all below
///   256 was written as 8-bit values (some old writers do; libtiff's RGBA reader takes it so too).
/// - Associated alpha is divided out, at the samples' own precision, before they are rounded.
/// - CMYK with alpha keeps four channels: the inks are flattened onto the paper (no ink), as the
///   image would print on white; associated alpha already is.
struct TIFFPixelConverter {
    enum Kind {
        case grey(invert: Bool)
        case palette(red: [UInt8], green: [UInt8], blue: [UInt8])
        case rgb
        case cmyk
    }

    let kind: Kind
    let samplesPerPixel: Int
    let alpha: TIFFAlpha?
    /// 2^bits - 1.
    let maxValue: Int
    /// A stored value's 8-bit level, for every value the depth can hold.
    let level: [UInt8]

    init(_ directory: TIFFDirectory, colormap: (red: [UInt16], green: [UInt16], blue: [UInt16])?) throws(ImageError) {
        samplesPerPixel = directory.samplesPerPixel
        alpha = directory.alpha
        maxValue = (1 << directory.bitsPerSample) - 1
        let maxValue = maxValue
        level = (0...maxValue).map { UInt8(($0 * 255 + maxValue / 2) / maxValue) }
        switch directory.model {
        case .grey(let minIsWhite): kind = .grey(invert: minIsWhite)
        case .rgb, .ycbcrThroughJPEG: kind = .rgb
        case .cmyk: kind = .cmyk
        case .palette:
            guard let colormap else { throw .corrupt("the palette TIFF has no ColorMap") }
            let eightBit = [colormap.red, colormap.green, colormap.blue].allSatisfy { $0.allSatisfy { $0 < 256 } }
            func levels(_ entries: [UInt16]) -> [UInt8] { entries.map { UInt8(truncatingIfNeeded: eightBit ? $0 : $0 >> 8) } }
            kind = .palette(red: levels(colormap.red), green: levels(colormap.green), blue: levels(colormap.blue))
        case .ycbcrThroughRGBAReader:
            preconditionFailure("libtiff's RGBA reader converts YCbCr itself")
        }
    }

    /// Converts `count` pixels of `samplesPerPixel` samples each into `count` 4-byte pixels.
    func convert(_ samples: UnsafePointer<UInt16>, count: Int, into out: UnsafeMutablePointer<UInt8>) {
        level.withUnsafeBufferPointer { level in
            switch kind {
            case .grey(let invert): grey(samples, count, out, level, invert: invert)
            case .palette(let red, let green, let blue): palette(samples, count, out, level, red, green, blue)
            case .rgb: rgb(samples, count, out, level)
            case .cmyk: cmyk(samples, count, out, level)
            }
        }
    }

    /// The alpha sample of a pixel (`maxValue` when there is none).
    @inline(__always)
    private func alphaValue(_ pixel: UnsafePointer<UInt16>) -> Int {
        guard let alpha else { return maxValue }
        return Int(pixel[alpha.sampleIndex])
    }

    /// A colour sample with associated alpha divided out (unchanged otherwise), still unscaled.
    @inline(__always)
    private func straight(_ value: UInt16, alpha a: Int) -> Int {
        guard let alpha, alpha.associated else { return Int(value) }
        guard a > 0 else { return 0 }
        return min(maxValue, (Int(value) * maxValue + a / 2) / a)
    }

    private func grey(_ samples: UnsafePointer<UInt16>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>,
                      _ level: UnsafeBufferPointer<UInt8>, invert: Bool) {
        for i in 0..<count {
            let pixel = samples + i * samplesPerPixel
            let a = alphaValue(pixel)
            let value = level[straight(pixel[0], alpha: a)]
            let g = invert ? 255 - value : value
            let o = out + 4 * i
            o[0] = g
            o[1] = g
            o[2] = g
            o[3] = level[a]
        }
    }

    private func palette(_ samples: UnsafePointer<UInt16>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>,
                         _ level: UnsafeBufferPointer<UInt8>, _ red: [UInt8], _ green: [UInt8], _ blue: [UInt8]) {
        for i in 0..<count {
            let pixel = samples + i * samplesPerPixel
            // The map has 2^bits entries: every stored index is within it.
            let index = Int(pixel[0])
            let o = out + 4 * i
            o[0] = red[index]
            o[1] = green[index]
            o[2] = blue[index]
            o[3] = level[alphaValue(pixel)]
        }
    }

    private func rgb(_ samples: UnsafePointer<UInt16>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>,
                     _ level: UnsafeBufferPointer<UInt8>) {
        for i in 0..<count {
            let pixel = samples + i * samplesPerPixel
            let a = alphaValue(pixel)
            let o = out + 4 * i
            o[0] = level[straight(pixel[0], alpha: a)]
            o[1] = level[straight(pixel[1], alpha: a)]
            o[2] = level[straight(pixel[2], alpha: a)]
            o[3] = level[a]
        }
    }

    private func cmyk(_ samples: UnsafePointer<UInt16>, _ count: Int, _ out: UnsafeMutablePointer<UInt8>,
                      _ level: UnsafeBufferPointer<UInt8>) {
        // Unassociated alpha: ink * alpha puts the colour on white paper; associated already is.
        let flatten = alpha.map { !$0.associated } ?? false
        let maxValue = maxValue
        for i in 0..<count {
            let pixel = samples + i * samplesPerPixel
            let a = alphaValue(pixel)
            let o = out + 4 * i
            for ink in 0..<4 {
                let value = Int(pixel[ink])
                o[ink] = level[flatten ? (value * a + maxValue / 2) / maxValue : value]
            }
        }
    }
}
