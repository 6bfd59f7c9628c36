/// An image split into the four planes the hash transforms: luma, yellow-blue, red-green, alpha.
///
/// Transparent pixels are first laid over the image's own average colour. Laying them over black
/// or white would pull the colour averages toward it and put false edges around every cut-out;
/// over the average they carry no colour information at all.
struct ChannelPlanes {
    var luma: [Double]
    var yellowBlue: [Double]
    var redGreen: [Double]
    var alpha: [Double]
    /// True when any pixel is less than opaque, whatever the buffer's own `hasAlpha` claims.
    let hasAlpha: Bool

    init(_ image: CheckedPixels) {
        let rgba = image.rgba
        let count = image.pixelCount

        // Alpha-weighted mean colour; the order of operations matches the reference encoders so
        // that both round to the same hash.
        var sumR = 0.0, sumG = 0.0, sumB = 0.0, sumA = 0.0
        for pixel in 0..<count {
            let i = pixel * 4
            let opacity = Double(rgba[i + 3]) / 255
            sumR += opacity / 255 * Double(rgba[i])
            sumG += opacity / 255 * Double(rgba[i + 1])
            sumB += opacity / 255 * Double(rgba[i + 2])
            sumA += opacity
        }
        // A fully transparent image has no colour to average; black is as good as any.
        let background = sumA > 0 ? (sumR / sumA, sumG / sumA, sumB / sumA) : (0.0, 0.0, 0.0)
        hasAlpha = sumA < Double(count)

        luma = [Double](repeating: 0, count: count)
        yellowBlue = luma
        redGreen = luma
        alpha = luma
        for pixel in 0..<count {
            let i = pixel * 4
            let opacity = Double(rgba[i + 3]) / 255
            let cover = 1 - opacity
            let r = background.0 * cover + opacity / 255 * Double(rgba[i])
            let g = background.1 * cover + opacity / 255 * Double(rgba[i + 1])
            let b = background.2 * cover + opacity / 255 * Double(rgba[i + 2])
            let lpq = ColourSpace.lpq(r: r, g: g, b: b)
            luma[pixel] = lpq.l
            yellowBlue[pixel] = lpq.p
            redGreen[pixel] = lpq.q
            alpha[pixel] = opacity
        }
    }
}
