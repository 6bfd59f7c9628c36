/// The fixed fields at the front of a hash, as the integers the format stores.
///
/// Layout (little-endian bit fields):
/// - bytes 0-2: luma average (6 bits), yellow-blue average (6), red-green average (6),
///   luma scale (5), has-alpha flag (1);
/// - bytes 3-4: luma term count along the shorter side (3), yellow-blue scale (6),
///   red-green scale (6), landscape flag (1);
/// - byte 5, only with alpha: alpha average (4), alpha scale (4).
///
/// The coefficients follow as nibbles (see `NibbleWriter`).
struct HashHeader: Equatable {
    var lumaDC: Int
    var yellowBlueDC: Int
    var redGreenDC: Int
    var lumaScale: Int
    var hasAlpha: Bool
    /// Luma terms along x for a portrait or square image, along y for a landscape one; the longer
    /// side always has `lumaLimit` terms, so only this count has to be stored.
    var lumaCount: Int
    var yellowBlueScale: Int
    var redGreenScale: Int
    var isLandscape: Bool
    var alphaDC: Int
    var alphaScale: Int

    /// Alpha needs nibbles of its own, so an image with alpha gives luma fewer terms.
    static func lumaLimit(hasAlpha: Bool) -> Int { hasAlpha ? 5 : 7 }

    var lumaLimit: Int { Self.lumaLimit(hasAlpha: hasAlpha) }

    var fixedByteCount: Int { hasAlpha ? 6 : 5 }

    /// The luma term counts the image asked for, before `CosineGrid.luma` widens them to three.
    var carriedLumaCounts: (x: Int, y: Int) {
        isLandscape ? (lumaLimit, lumaCount) : (lumaCount, lumaLimit)
    }

    /// The counts are also the only record of the image's shape.
    var carriedAspectRatio: Double {
        let counts = carriedLumaCounts
        return Double(counts.x) / Double(counts.y)
    }

    var lumaGrid: CosineGrid {
        let counts = carriedLumaCounts
        return CosineGrid.luma(carriedX: counts.x, carriedY: counts.y)
    }

    /// The channels in the order their coefficients are stored.
    var grids: [CosineGrid] {
        hasAlpha ? [lumaGrid, .chroma, .chroma, .alpha] : [lumaGrid, .chroma, .chroma]
    }

    var coefficientCount: Int { grids.reduce(0) { $0 + $1.varyingTerms.count } }

    /// Two coefficients share a byte; an odd count leaves the last high nibble zero.
    var byteCount: Int { fixedByteCount + (coefficientCount + 1) / 2 }

    // The stored averages and scales in full-scale units.
    var lumaAverage: Double { Double(lumaDC) / 63 }
    var yellowBlueAverage: Double { Double(yellowBlueDC) / 31.5 - 1 }
    var redGreenAverage: Double { Double(redGreenDC) / 31.5 - 1 }
    var alphaAverage: Double { hasAlpha ? Double(alphaDC) / 15 : 1 }
    var lumaAmplitude: Double { Double(lumaScale) / 31 }
    var yellowBlueAmplitude: Double { Double(yellowBlueScale) / 63 }
    var redGreenAmplitude: Double { Double(redGreenScale) / 63 }
    var alphaAmplitude: Double { Double(alphaScale) / 15 }

    var bytes: [UInt8] {
        let first = UInt32(lumaDC & 63)
            | UInt32(yellowBlueDC & 63) << 6
            | UInt32(redGreenDC & 63) << 12
            | UInt32(lumaScale & 31) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let second = UInt16(lumaCount & 7)
            | UInt16(yellowBlueScale & 63) << 3
            | UInt16(redGreenScale & 63) << 9
            | (isLandscape ? 1 << 15 : 0)
        var result: [UInt8] = [
            UInt8(truncatingIfNeeded: first), UInt8(truncatingIfNeeded: first >> 8), UInt8(truncatingIfNeeded: first >> 16),
            UInt8(truncatingIfNeeded: second), UInt8(truncatingIfNeeded: second >> 8),
        ]
        if hasAlpha {
            result.append(UInt8(alphaDC & 15) | UInt8(alphaScale & 15) << 4)
        }
        return result
    }

    /// Reads the fixed fields; `nil` when the bytes run out before them or the luma count is zero.
    ///
    /// No encoder writes a count of zero (every image has at least one luma term per side), and
    /// accepting it would mean an aspect ratio of 0 or infinity.
    init?(reading hash: [UInt8]) {
        guard hash.count >= 5 else { return nil }
        let first = UInt32(hash[0]) | UInt32(hash[1]) << 8 | UInt32(hash[2]) << 16
        let second = UInt16(hash[3]) | UInt16(hash[4]) << 8
        hasAlpha = first >> 23 & 1 == 1
        guard !hasAlpha || hash.count >= 6 else { return nil }
        lumaDC = Int(first & 63)
        yellowBlueDC = Int(first >> 6 & 63)
        redGreenDC = Int(first >> 12 & 63)
        lumaScale = Int(first >> 18 & 31)
        lumaCount = Int(second & 7)
        yellowBlueScale = Int(second >> 3 & 63)
        redGreenScale = Int(second >> 9 & 63)
        isLandscape = second >> 15 == 1
        alphaDC = hasAlpha ? Int(hash[5] & 15) : 15
        alphaScale = hasAlpha ? Int(hash[5] >> 4) : 15
        guard lumaCount > 0 else { return nil }
    }

    init(lumaDC: Int, yellowBlueDC: Int, redGreenDC: Int, lumaScale: Int, hasAlpha: Bool, lumaCount: Int,
         yellowBlueScale: Int, redGreenScale: Int, isLandscape: Bool, alphaDC: Int, alphaScale: Int) {
        self.lumaDC = lumaDC
        self.yellowBlueDC = yellowBlueDC
        self.redGreenDC = redGreenDC
        self.lumaScale = lumaScale
        self.hasAlpha = hasAlpha
        self.lumaCount = lumaCount
        self.yellowBlueScale = yellowBlueScale
        self.redGreenScale = redGreenScale
        self.isLandscape = isLandscape
        self.alphaDC = alphaDC
        self.alphaScale = alphaScale
    }
}
