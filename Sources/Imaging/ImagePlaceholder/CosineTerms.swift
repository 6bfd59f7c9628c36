/// One 2-D cosine basis function: `cx` half-periods across the image, `cy` down it.
struct CosineTerm: Equatable {
    let cx: Int
    let cy: Int
}

/// Which cosine terms a channel keeps, and in which order their coefficients are stored.
///
/// The format keeps a triangle of low frequencies rather than the full `nx` x `ny` grid: the
/// high-x/high-y corner adds little to a blur and would cost a nibble per term.
struct CosineGrid: Equatable {
    let nx: Int
    let ny: Int

    static let chroma = CosineGrid(nx: 3, ny: 3)
    static let alpha = CosineGrid(nx: 5, ny: 5)

    /// Luma is given at least three terms per axis even for a thin image, so its detail does not
    /// collapse to a single row or column.
    static func luma(carriedX: Int, carriedY: Int) -> CosineGrid {
        CosineGrid(nx: max(3, carriedX), ny: max(3, carriedY))
    }

    /// Row by row (cy outer), the order the format writes them in; the constant term comes first.
    var terms: [CosineTerm] {
        var result: [CosineTerm] = []
        for cy in 0..<ny {
            var cx = 0
            // Integer form of cx/nx + cy/ny < 1, the triangle's hypotenuse.
            while cx * ny < nx * (ny - cy) {
                result.append(CosineTerm(cx: cx, cy: cy))
                cx += 1
            }
        }
        return result
    }

    /// The terms after the constant one: the ones stored as 4-bit coefficients.
    var varyingTerms: ArraySlice<CosineTerm> { terms.dropFirst() }
}
