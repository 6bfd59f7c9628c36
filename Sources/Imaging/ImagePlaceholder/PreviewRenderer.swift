import Foundation
import ImageCore

/// Hash to preview: the inverse cosine transform, sampled on a small grid.
enum PreviewRenderer {
    /// The preview's longer side, as in the reference decoders: enough for a blur that the
    /// browser or app scales up anyway.
    static let longerSide = 32

    /// The preview's size for a carried aspect ratio: 32 on the longer side, the shorter rounded.
    static func size(aspectRatio ratio: Double) -> (width: Int, height: Int) {
        let side = Double(longerSide)
        // The ratio lies between 1/7 and 7, so the shorter side is at least 5 pixels.
        if ratio > 1 {
            return (longerSide, max(1, Quantizer.level(side / ratio, max: longerSide)))
        }
        return (max(1, Quantizer.level(side * ratio, max: longerSide)), longerSide)
    }

    /// `ratio` nil: the ratio the hash carries.
    static func render(_ contents: HashContents, aspectRatio ratio: Double? = nil) -> PixelBuffer {
        let header = contents.header
        let (width, height) = size(aspectRatio: ratio ?? header.carriedAspectRatio)
        let lumaGrid = header.lumaGrid
        let lumaTerms = Array(lumaGrid.varyingTerms)
        let chromaTerms = Array(CosineGrid.chroma.varyingTerms)
        let alphaTerms = header.hasAlpha ? Array(CosineGrid.alpha.varyingTerms) : []

        // Each pixel needs the same few cosines of its column and its row; tabulate them once.
        let columns = max(lumaGrid.nx, header.hasAlpha ? CosineGrid.alpha.nx : CosineGrid.chroma.nx)
        let rows = max(lumaGrid.ny, header.hasAlpha ? CosineGrid.alpha.ny : CosineGrid.chroma.ny)
        let columnCosines = cosineTable(samples: width, frequencies: columns)
        let rowCosines = cosineTable(samples: height, frequencies: rows)

        var pixels = [UInt8](repeating: 0, count: width * height * PixelBuffer.bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                // The transform's basis doubles every term but the constant one.
                func weight(_ term: CosineTerm) -> Double {
                    columnCosines[x * columns + term.cx] * (rowCosines[y * rows + term.cy] * 2)
                }
                var l = header.lumaAverage
                for (j, term) in lumaTerms.enumerated() { l += contents.luma[j] * weight(term) }
                var p = header.yellowBlueAverage
                var q = header.redGreenAverage
                for (j, term) in chromaTerms.enumerated() {
                    let w = weight(term)
                    p += contents.yellowBlue[j] * w
                    q += contents.redGreen[j] * w
                }
                var a = header.alphaAverage
                for (j, term) in alphaTerms.enumerated() { a += contents.alpha[j] * weight(term) }

                let colour = ColourSpace.rgb(l: l, p: p, q: q)
                let i = (y * width + x) * PixelBuffer.bytesPerPixel
                // Rounded, where the JavaScript reference truncates: truncating darkens every
                // channel by half a level on average.
                pixels[i] = UnitScale.byte(colour.r)
                pixels[i + 1] = UnitScale.byte(colour.g)
                pixels[i + 2] = UnitScale.byte(colour.b)
                pixels[i + 3] = UnitScale.byte(a)
            }
        }
        return PixelBuffer(width: width, height: height, hasAlpha: header.hasAlpha, pixels: pixels)
    }

    /// `table[sample * frequencies + k]` is cos(pi * k * (sample + 0.5) / samples).
    private static func cosineTable(samples: Int, frequencies: Int) -> [Double] {
        var table = [Double](repeating: 0, count: samples * frequencies)
        for sample in 0..<samples {
            for k in 0..<frequencies {
                table[sample * frequencies + k] = cos(Double.pi / Double(samples) * (Double(sample) + 0.5) * Double(k))
            }
        }
        return table
    }
}
