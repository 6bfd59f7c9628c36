import Foundation

/// The highest quality whose encoding fits a byte budget, with as few encodes as it can: the
/// ceiling, then a guess from a model of how size falls with quality, then the secant between the
/// nearest fitting and overflowing tries. Shared by the byte cap of thumbnails (`ByteCap`) and the
/// upload budget (whose search goes on to shrink the dimensions when the floor overflows).
public enum QualitySearch {
    /// The size aimed at, as a share of the budget: the model's error (a few percent) then rarely
    /// carries a guess over.
    public static let aim = 0.95
    /// A fitting result this close to the budget ends the search: one more encode would buy at most
    /// a quality step.
    public static let closeEnough = 0.90
    static let maxTries = 6
    /// d ln(size) / d ln(libjpeg quantiser scale), measured over real photos at 1200 px between
    /// quality 50 and 92 (-0.42 near the top to -0.56 near the floor); the first guess uses it,
    /// later guesses use the image's own secant.
    static let qualitySlope = -0.5

    /// One encode's place on a log-log line: x is ln(quantiser scale) or ln(side scale).
    public struct Try: Sendable {
        public var x: Double
        public var size: Int

        public init(x: Double, size: Int) { (self.x, self.size) = (x, size) }
    }

    /// The bytes and quality of the best fitting encode, or nil when even `floor` overflows.
    /// `encode(quality)` is called for every try, so the caller can record them.
    public static func highestFitting<Failure: Error>(budget: Int, ceiling: Int, floor: Int,
                                                      encode: (Int) throws(Failure) -> [UInt8]) throws(Failure) -> (bytes: [UInt8], quality: Int)? {
        var best: (bytes: [UInt8], quality: Int)?
        var over: (quality: Int, size: Int)?
        var quality = ceiling
        for _ in 0..<maxTries {
            let bytes = try encode(quality)
            if bytes.count <= budget {
                if best.map({ quality > $0.quality }) ?? true { best = (bytes, quality) }
                if quality == ceiling || Double(bytes.count) >= closeEnough * Double(budget) { break }
            } else {
                over = (quality, bytes.count)
                if quality == floor { return best }
            }
            guard let next = nextQuality(fitting: best.map { ($0.quality, $0.bytes.count) }, over: over,
                                         budget: budget, ceiling: ceiling, floor: floor) else { break }
            quality = next
        }
        if best == nil {
            // The tries ran out above the floor: the floor decides.
            let bytes = try encode(floor)
            guard bytes.count <= budget else { return nil }
            best = (bytes, floor)
        }
        return best
    }

    private static func nextQuality(fitting: (quality: Int, size: Int)?, over: (quality: Int, size: Int)?,
                                    budget: Int, ceiling: Int, floor: Int) -> Int? {
        let low = fitting?.quality ?? floor - 1
        let high = over?.quality ?? ceiling + 1
        guard high - low > 1 else { return nil }
        let target = log(aim * Double(budget))
        let guessX: Double
        switch (fitting, over) {
        case let (fit?, over?) where fit.size != over.size:
            guessX = secant(Try(x: lnScale(fit.quality), size: fit.size), Try(x: lnScale(over.quality), size: over.size), target: target)
        case let (_, over?):
            guessX = lnScale(over.quality) + (target - log(Double(over.size))) / qualitySlope
        case let (fit?, nil):
            guessX = lnScale(fit.quality) + (target - log(Double(fit.size))) / qualitySlope
        case (nil, nil):
            return nil
        }
        let guess = Int(quality(lnScale: guessX).rounded())
        return min(high - 1, max(low + 1, max(floor, guess)))
    }

    /// Where the line through two tries in (x, ln size) reaches `target`.
    public static func secant(_ a: Try, _ b: Try, target: Double) -> Double {
        let ya = log(Double(a.size)), yb = log(Double(b.size))
        return a.x + (target - ya) * (b.x - a.x) / (yb - ya)
    }

    /// libjpeg's quality-to-quantiser scaling (percent of the base tables); size follows it as a
    /// power law closely enough to guess with, and libwebp's quality behaves alike.
    static func lnScale(_ quality: Int) -> Double {
        let q = Double(min(100, max(1, quality)))
        return log(max(1, q < 50 ? 5000 / q : 200 - 2 * q))
    }

    static func quality(lnScale: Double) -> Double {
        let scale = exp(lnScale)
        return scale <= 100 ? (200 - scale) / 2 : 5000 / scale
    }
}
