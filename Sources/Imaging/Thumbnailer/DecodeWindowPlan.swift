import ImageCodecs
import ImageCore
import ImageOps

/// The part of a JPEG that cover thumbnails cropped from a place known before decoding (centre or
/// focus gravity) read: their crops, mapped into the stored image at the decode's scale, with the
/// Lanczos filter's reach around them. Decoding that window alone skips the inverse DCT, the
/// upsampling and the colour conversion of the columns a 300x400 crop of a landscape photo drops
/// (about half of them), and every row above and below.
///
/// Its thumbnails are those of the whole decode: the margin holds every tap the filter reads, plus
/// four of the box pre-reduction's blocks, and the window starts on a multiple of 32 blocks, so
/// the blocks fall where they fall in the whole image and libjpeg's iMCU alignment (at most 32
/// pixels, a power of two) moves nothing. The edge columns libjpeg upsamples without a neighbour
/// lie in the margin.
enum DecodeWindowPlan {
    /// The window all of `requests` read, or nil when one of them needs the whole photo (a smart
    /// crop weighs all of it, a trim looks at its border, `contain` and `pad` show all of it), when
    /// the format decodes whole images only, or when the window is most of the image anyway.
    static func union(for requests: [ThumbnailRequest], info: ImageInfo, scale: DecodeScaleHint) -> DecodeWindow? {
        guard info.format == .jpeg, let s = ImageCodecs.decodeScale(of: info.format, for: scale) else { return nil }
        var union: DecodeWindow?
        for request in requests {
            guard let needed = needed(by: request, info: info, decodeScale: s) else { return nil }
            union = union.map { $0.union(needed) } ?? needed
        }
        guard let union else { return nil }
        let full = fullSize(info, decodeScale: s)
        return Double(union.width * union.height) < 0.85 * Double(full.width * full.height) ? union : nil
    }

    /// What `request`'s thumbnail reads of the stored image decoded at `s`; nil when it needs all of it.
    static func needed(by request: ThumbnailRequest, info: ImageInfo, decodeScale s: Double) -> DecodeWindow? {
        guard request.fit == .cover, !request.trim else { return nil }
        let upright = info.orientation.uprightSize(width: info.width, height: info.height)
        let geometry = ThumbnailGeometry(uprightWidth: upright.width, uprightHeight: upright.height,
                                         width: request.width, height: request.height, fit: request.fit)
        var region = geometry.region
        switch request.gravity {
        case .center: break
        case .smart: return nil
        case .focus(let point):
            let whole = SourceRegion(x: 0, y: 0, width: Double(upright.width), height: Double(upright.height))
            region = FocusCrop.moved(region, to: point, within: whole, uprightWidth: upright.width, uprightHeight: upright.height)
        }
        let (stored, outputWidth, outputHeight) = geometry.stored(region, info: info)
        let full = fullSize(info, decodeScale: s)
        let columns = span(from: stored.x * s, length: stored.width * s, output: outputWidth, limit: full.width)
        let rows = span(from: stored.y * s, length: stored.height * s, output: outputHeight, limit: full.height)
        return DecodeWindow(x: columns.lowerBound, y: rows.lowerBound, width: columns.count, height: rows.count)
    }

    /// libjpeg's size at M/8: the stored size times M/8, rounded up.
    static func fullSize(_ info: ImageInfo, decodeScale s: Double) -> (width: Int, height: Int) {
        (Int((Double(info.width) * s).rounded(.up)), Int((Double(info.height) * s).rounded(.up)))
    }

    /// The decoded pixels one axis of the resize reads for `length` pixels from `origin` onto `output`.
    private static func span(from origin: Double, length: Double, output: Int, limit: Int) -> Range<Int> {
        let factor = length / Double(output)
        let box = Resampler.Prereduction.automatic.boxFactor(factor)
        let margin = Int((3 * max(factor, 1)).rounded(.up)) + 4 * box
        let alignment = 32 * box
        let start = max(0, Int(origin.rounded(.down)) - margin) / alignment * alignment
        let end = min(limit, Int((origin + length).rounded(.up)) + margin)
        return start..<max(end, start + 1)
    }
}

extension DecodeWindow {
    func union(_ other: DecodeWindow) -> DecodeWindow {
        let x0 = min(x, other.x), y0 = min(y, other.y)
        return DecodeWindow(x: x0, y: y0, width: max(x + width, other.x + other.width) - x0,
                            height: max(y + height, other.y + other.height) - y0)
    }
}
