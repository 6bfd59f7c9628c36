/// A hash read back: its header and each channel's coefficients in full-scale units.
///
/// This is the one place that decides whether a hash is well formed; `decode`, `averageColor`
/// and `aspectRatio` all go through it, so they refuse the same hashes.
struct HashContents {
    let header: HashHeader
    let luma: [Double]
    let yellowBlue: [Double]
    let redGreen: [Double]
    let alpha: [Double]

    /// Chroma is quantized more coarsely than luma, which washes colour out; the reference
    /// decoders scale it back up by this much, and previews here should look like theirs.
    static let saturationBoost = 1.25

    init?(_ hash: [UInt8]) {
        guard let header = HashHeader(reading: hash), hash.count >= header.byteCount else { return nil }
        self.header = header

        var reader = NibbleReader(hash, start: header.fixedByteCount)
        // A nibble of 0...15 stands for -1...1 times the channel's amplitude.
        func coefficients(_ grid: CosineGrid, amplitude: Double) -> [Double]? {
            var values: [Double] = []
            for _ in grid.varyingTerms {
                guard let nibble = reader.next() else { return nil }
                values.append((Double(nibble) / 7.5 - 1) * amplitude)
            }
            return values
        }
        guard let luma = coefficients(header.lumaGrid, amplitude: header.lumaAmplitude),
              let yellowBlue = coefficients(.chroma, amplitude: header.yellowBlueAmplitude * Self.saturationBoost),
              let redGreen = coefficients(.chroma, amplitude: header.redGreenAmplitude * Self.saturationBoost)
        else { return nil }
        self.luma = luma
        self.yellowBlue = yellowBlue
        self.redGreen = redGreen
        if header.hasAlpha {
            guard let alpha = coefficients(.alpha, amplitude: header.alphaAmplitude) else { return nil }
            self.alpha = alpha
        } else {
            self.alpha = []
        }
    }
}
