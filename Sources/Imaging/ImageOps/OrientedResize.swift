import ImageCore

extension Resampler {
    /// Resizes `region` of the upright image — `source` turned by `orientation` — without turning
    /// the full-size source: the region is mapped into stored coordinates, resampled there, and only
    /// the small result is turned. The output equals
    /// `resize(source.oriented(orientation), region: region, width: width, height: height)` within
    /// rounding (±1), and saves a full-size copy (the separable kernel is symmetric, so flips and
    /// transposes commute with it).
    ///
    /// `region` is in upright pixels (nil: the whole upright image); `width` x `height` is the
    /// upright output size.
    public static func resize(_ source: PixelBuffer, orientation: Orientation, region: SourceRegion? = nil,
                              width: Int, height: Int, prereduction: Prereduction = .automatic,
                              arithmetic: Arithmetic = .automatic) -> PixelBuffer {
        guard orientation != .up else {
            return resize(source, region: region, width: width, height: height, prereduction: prereduction, arithmetic: arithmetic)
        }
        let w = Double(source.width), h = Double(source.height)
        let upright = orientation.uprightSize(width: source.width, height: source.height)
        let r = region ?? SourceRegion(x: 0, y: 0, width: Double(upright.width), height: Double(upright.height))
        let stored = storedRegion(r, orientation: orientation, storedWidth: w, storedHeight: h)
        let (storedWidth, storedHeight) = orientation.swapsDimensions ? (height, width) : (width, height)
        return resize(source, region: stored, width: storedWidth, height: storedHeight,
                      prereduction: prereduction, arithmetic: arithmetic)
            .oriented(orientation)
    }

    /// Where an upright region lies in the stored image (continuous coordinates, so mirrored
    /// axes map `x ..< x + width` to `W - x - width ..< W - x`).
    public static func storedRegion(_ r: SourceRegion, orientation: Orientation,
                                    storedWidth w: Double, storedHeight h: Double) -> SourceRegion {
        switch orientation {
        case .up: r
        case .upMirrored: SourceRegion(x: w - r.x - r.width, y: r.y, width: r.width, height: r.height)
        case .down: SourceRegion(x: w - r.x - r.width, y: h - r.y - r.height, width: r.width, height: r.height)
        case .downMirrored: SourceRegion(x: r.x, y: h - r.y - r.height, width: r.width, height: r.height)
        // Upright (x, y) is stored (y, x).
        case .leftMirrored: SourceRegion(x: r.y, y: r.x, width: r.height, height: r.width)
        // Upright (x, y) is stored (y, H - 1 - x).
        case .right: SourceRegion(x: r.y, y: h - r.x - r.width, width: r.height, height: r.width)
        // Upright (x, y) is stored (W - 1 - y, H - 1 - x).
        case .rightMirrored: SourceRegion(x: w - r.y - r.height, y: h - r.x - r.width, width: r.height, height: r.width)
        // Upright (x, y) is stored (W - 1 - y, x).
        case .left: SourceRegion(x: w - r.y - r.height, y: r.x, width: r.height, height: r.width)
        }
    }
}

extension Resampler {
    /// Where a stored region lies in the upright image: `storedRegion` undone, by the inverse
    /// orientation over the upright dimensions.
    public static func uprightRegion(_ r: SourceRegion, orientation: Orientation,
                                     storedWidth w: Double, storedHeight h: Double) -> SourceRegion {
        let (uprightWidth, uprightHeight) = orientation.swapsDimensions ? (h, w) : (w, h)
        return storedRegion(r, orientation: orientation.inverse, storedWidth: uprightWidth, storedHeight: uprightHeight)
    }
}
