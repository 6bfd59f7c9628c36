import ImageCore

/// How much each pixel of a small image stands out, as a product in a seller's photo stands out
/// from its background. Built from four cues (see `SaliencyCues`), each scaled to [0, 1] and
/// weighted by how peaked it is, so a cue that fires everywhere (edges on a busy photo) counts
/// less than one that fires in one place (a red jug on a white sweep).
///
/// Meant for a thumbnail-sized copy (about 100 px on the long side, the placeholder's): the cost
/// grows with the pixel count and the cues are tuned for objects a few dozen pixels wide.
/// Deterministic: plain arithmetic on the pixels, no randomness, no threads.
public struct SaliencyMap: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// Row-major, `width * height` values, 0 where nothing stands out.
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(values.count == width * height, "SaliencyMap size does not match its values")
        self.width = width
        self.height = height
        self.values = values
    }

    /// The map of `image` (transparent pixels are seen over white, as a flattened thumbnail shows them).
    /// `sharpDetail`, measured on the larger decoded photo over the same grid, replaces the fine
    /// detail the small copy shows: at 100 px a blurred room still looks crisp, at the decoded size
    /// it does not, and only the product in focus keeps sharp edges.
    public init(of image: PixelBuffer, sharpDetail: SharpDetail? = nil) {
        let colours = OpponentColours(image)
        let decodedDetail = sharpDetail.flatMap { $0.width == image.width && $0.height == image.height ? $0.values : nil }
        let fineDetail = decodedDetail ?? SaliencyCues.fineDetail(colours)
        // Before a blurred background, sharpness is what tells the product from a bright blurred
        // object near it, where colour and enclosure cannot: its cue counts more the plainer the
        // edge. Only the decoded photo's detail can say so; the small copy's looks crisp everywhere.
        let detailBoost = decodedDetail.map { Self.sharpDetailBoost * Self.edgePlainness($0, width: image.width, height: image.height) } ?? 0
        let cues: [(values: [Float], boost: Float)] = [
            (SaliencyCues.distanceFromBorders(colours), 0),
            (SaliencyCues.detailContrast(fineDetail, width: image.width, height: image.height), detailBoost),
            (SaliencyCues.colourRarity(colours), 0),
            (SaliencyCues.enclosure(colours), 0),
        ]
        var combined = [Float](repeating: 0, count: colours.count)
        for cue in cues {
            let scaled = Self.scaledToUnit(cue.values)
            let weight = Self.peakedness(scaled) * (1 + cue.boost)
            for i in combined.indices { combined[i] += weight * scaled[i] }
        }
        // What every part of the picture has is background: only the excess over the median counts,
        // so a busy photo's texture does not pull the window away from the product.
        let floor = ValueQuantile.of(combined, 0.5)
        for i in combined.indices { combined[i] = max(0, combined[i] - floor) }
        self.init(width: image.width, height: image.height, values: combined)
    }

    /// How much more the sharp-detail cue counts when the frame's edge is plain (see `edgePlainness`).
    static let sharpDetailBoost: Float = 4

    /// How plain the frame's edge is in the decoded photo's detail: 1 when its detail is even
    /// (the grain of a sweep, a blurred room), 0 when some of it is far above the rest (things in
    /// focus at the edge: a busy room). Read as the ratio of the edge's 90th percentile to its
    /// median, which is scale free: a photo decoded larger or noisier moves both alike. On 288
    /// generated scenes (`CropScenes`) it was 1.2–1.4 for nine in ten sweeps and blurred rooms, and
    /// over 1.6 for three in four busy rooms.
    static func edgePlainness(_ detail: [Float], width w: Int, height h: Int) -> Float {
        let ring = max(1, min(w, h) / 10)
        var edge: [Float] = []
        edge.reserveCapacity(2 * ring * (w + h))
        for y in 0..<h {
            let wholeRow = y < ring || y >= h - ring
            for x in 0..<w where wholeRow || x < ring || x >= w - ring { edge.append(detail[y * w + x]) }
        }
        let median = ValueQuantile.of(edge, 0.5)
        guard median > 0 else { return 1 }
        let spread = ValueQuantile.of(edge, 0.9) / median
        let (plain, busy): (Float, Float) = (1.3, 1.45)
        return min(1, max(0, (busy - spread) / (busy - plain)))
    }

    /// The cue divided by its 98th percentile and capped at 1: a few extreme pixels (a specular
    /// highlight) do not flatten the rest.
    static func scaledToUnit(_ cue: [Float]) -> [Float] {
        let top = ValueQuantile.of(cue, 0.98)
        guard top > 0 else { return [Float](repeating: 0, count: cue.count) }
        return cue.map { min(1, $0 / top) }
    }

    /// Itti and Koch's map normalisation, simplified: (max - mean)^2 on a map scaled to [0, 1].
    /// A map with a few strong places gets a weight near 1, one active everywhere near 0.
    static func peakedness(_ scaled: [Float]) -> Float {
        guard !scaled.isEmpty else { return 0 }
        let mean = scaled.reduce(0, +) / Float(scaled.count)
        let peak = scaled.max() ?? 0
        return (peak - mean) * (peak - mean)
    }
}

/// An image's pixels in an opponent colour space (lightness, red-green, yellow-blue), in 0...1
/// units: differences in it follow what the eye separates better than RGB's do.
struct OpponentColours {
    let width: Int
    let height: Int
    var lightness: [Float]
    var redGreen: [Float]
    var yellowBlue: [Float]

    var count: Int { width * height }

    init(_ image: PixelBuffer) {
        width = image.width
        height = image.height
        let n = image.width * image.height
        lightness = [Float](repeating: 0, count: n)
        redGreen = [Float](repeating: 0, count: n)
        yellowBlue = [Float](repeating: 0, count: n)
        let pixels = image.pixels
        for i in 0..<n {
            var r = Float(pixels[4 * i]), g = Float(pixels[4 * i + 1]), b = Float(pixels[4 * i + 2])
            if image.hasAlpha {
                let a = Float(pixels[4 * i + 3]) / 255
                r = r * a + 255 * (1 - a); g = g * a + 255 * (1 - a); b = b * a + 255 * (1 - a)
            }
            lightness[i] = (0.299 * r + 0.587 * g + 0.114 * b) / 255
            redGreen[i] = (r - g) / 255
            yellowBlue[i] = (0.5 * (r + g) - b) / 255
        }
    }

    func distance(_ i: Int, _ l: Float, _ rg: Float, _ yb: Float) -> Float {
        let dl = lightness[i] - l, da = redGreen[i] - rg, db = yellowBlue[i] - yb
        return (dl * dl + da * da + db * db).squareRoot()
    }
}

/// Quantiles of non-negative values from a histogram: linear time, where sorting a map for each
/// cue would cost more than the rest of the work.
enum ValueQuantile {
    static func of(_ values: [Float], _ fraction: Float, bins: Int = 256) -> Float {
        guard let peak = values.max(), peak > 0 else { return 0 }
        var histogram = [Int](repeating: 0, count: bins)
        let scale = Float(bins - 1) / peak
        for v in values { histogram[Int(max(0, v) * scale)] += 1 }
        let wanted = Int(Float(values.count) * fraction)
        var seen = 0
        for (bin, count) in histogram.enumerated() {
            seen += count
            if seen > wanted { return (Float(bin) + 0.5) / scale }
        }
        return peak
    }
}
