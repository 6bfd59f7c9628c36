/// Image to hash: planes, spectra, then the header and nibbles.
enum HashEncoder {
    static func encode(_ image: CheckedPixels) -> [UInt8] {
        let planes = ChannelPlanes(image)
        let width = image.width, height = image.height

        // Luma terms per axis follow the image's shape, the longer side getting the full limit.
        let limit = HashHeader.lumaLimit(hasAlpha: planes.hasAlpha)
        let longer = Double(max(width, height))
        let countX = max(1, Quantizer.level(Double(limit * width) / longer, max: limit))
        let countY = max(1, Quantizer.level(Double(limit * height) / longer, max: limit))
        let isLandscape = width > height

        func spectrum(_ plane: [Double], _ grid: CosineGrid) -> Spectrum {
            Spectrum(plane: plane, width: width, height: height, grid: grid)
        }
        let luma = spectrum(planes.luma, .luma(carriedX: countX, carriedY: countY))
        let yellowBlue = spectrum(planes.yellowBlue, .chroma)
        let redGreen = spectrum(planes.redGreen, .chroma)
        let alpha = planes.hasAlpha ? spectrum(planes.alpha, .alpha) : nil

        // The chroma averages lie in -1...1, so they are stored shifted to 0...63.
        let header = HashHeader(
            lumaDC: Quantizer.level(63 * luma.dc, max: 63),
            yellowBlueDC: Quantizer.level(31.5 + 31.5 * yellowBlue.dc, max: 63),
            redGreenDC: Quantizer.level(31.5 + 31.5 * redGreen.dc, max: 63),
            lumaScale: Quantizer.level(31 * luma.scale, max: 31),
            hasAlpha: planes.hasAlpha,
            lumaCount: isLandscape ? countY : countX,
            yellowBlueScale: Quantizer.level(63 * yellowBlue.scale, max: 63),
            redGreenScale: Quantizer.level(63 * redGreen.scale, max: 63),
            isLandscape: isLandscape,
            alphaDC: alpha.map { Quantizer.level(15 * $0.dc, max: 15) } ?? 15,
            alphaScale: alpha.map { Quantizer.level(15 * $0.scale, max: 15) } ?? 15
        )

        var writer = NibbleWriter(after: header.bytes)
        for channel in [luma, yellowBlue, redGreen] + (alpha.map { [$0] } ?? []) {
            for value in channel.normalizedAC {
                writer.append(Quantizer.level(15 * value, max: 15))
            }
        }
        return writer.bytes
    }
}
