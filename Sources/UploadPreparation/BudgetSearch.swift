import Foundation
import ImageCore
import ImageOps

/// Finds the encoding that lands closest under a byte budget with as few encodes as it can.
///
/// Quality first: the ceiling, then a guess from a model of how size falls with quality, then the
/// secant between the nearest fitting and overflowing tries. Only when the floor quality still
/// overflows do the dimensions shrink, at the floor quality, by the same kind of search on scale.
/// Every byte array it returns has been measured against the budget: it can fail, never overflow.
struct BudgetSearch {
    let budget: Int
    let ceiling: Int
    let floor: Int
    let minSide: Int
    let encode: (PixelBuffer, Int) throws(ImageError) -> [UInt8]
    private(set) var steps: [EncodeStep] = []

    /// The size aimed at, as a share of the budget: the model's error (a few percent) then rarely
    /// carries a guess over.
    static let aim = 0.95
    /// A fitting result this close to the budget ends the search: one more encode would buy at most
    /// a quality step or a few pixels.
    static let closeEnough = 0.90
    static let maxQualityTries = 6
    static let maxShrinkTries = 8
    /// d ln(size) / d ln(libjpeg quantiser scale), measured over real photos at 1200 px between
    /// quality 50 and 92 (-0.42 near the top to -0.56 near the floor); the first guess uses it,
    /// later guesses use the image's own secant.
    static let qualitySlope = -0.5
    /// d ln(size) / d ln(side): a bit under 2, since smaller images hold denser detail per pixel.
    static let sideSlope = 1.7

    struct Result {
        var bytes: [UInt8]
        var quality: Int
        var width: Int
        var height: Int
    }

    private struct Try {
        var x: Double  // ln(quantiser scale) or ln(side scale)
        var size: Int
    }

    mutating func run(_ image: PixelBuffer) throws(UploadError) -> Result {
        if let fitted = try searchQuality(image) { return fitted }
        return try shrink(image)
    }

    /// nil when even the floor quality overflows at this size.
    private mutating func searchQuality(_ image: PixelBuffer) throws(UploadError) -> Result? {
        var best: Result?
        var over: (quality: Int, size: Int)?
        var quality = ceiling
        for _ in 0..<Self.maxQualityTries {
            let bytes = try encoded(image, quality)
            if bytes.count <= budget {
                if best.map({ quality > $0.quality }) ?? true {
                    best = Result(bytes: bytes, quality: quality, width: image.width, height: image.height)
                }
                if quality == ceiling || Double(bytes.count) >= Self.closeEnough * Double(budget) { break }
            } else {
                over = (quality, bytes.count)
                if quality == floor { return best }
            }
            guard let next = nextQuality(fitting: best.map { ($0.quality, $0.bytes.count) }, over: over) else { break }
            quality = next
        }
        if best == nil {
            // The tries ran out above the floor: the floor decides between fitting and shrinking.
            let bytes = try encoded(image, floor)
            guard bytes.count <= budget else { return nil }
            best = Result(bytes: bytes, quality: floor, width: image.width, height: image.height)
        }
        return best
    }

    private func nextQuality(fitting: (quality: Int, size: Int)?, over: (quality: Int, size: Int)?) -> Int? {
        let low = fitting?.quality ?? floor - 1
        let high = over?.quality ?? ceiling + 1
        guard high - low > 1 else { return nil }
        let target = log(Self.aim * Double(budget))
        let guessX: Double
        switch (fitting, over) {
        case let (fit?, over?) where fit.size != over.size:
            guessX = Self.secant(Try(x: Self.lnScale(fit.quality), size: fit.size),
                                 Try(x: Self.lnScale(over.quality), size: over.size), target: target)
        case let (_, over?):
            guessX = Self.lnScale(over.quality) + (target - log(Double(over.size))) / Self.qualitySlope
        case let (fit?, nil):
            guessX = Self.lnScale(fit.quality) + (target - log(Double(fit.size))) / Self.qualitySlope
        case (nil, nil):
            return nil
        }
        let guess = Int(Self.quality(lnScale: guessX).rounded())
        return min(high - 1, max(low + 1, max(floor, guess)))
    }

    /// At the floor quality, the largest size that fits, searched on the scale of both sides.
    private mutating func shrink(_ image: PixelBuffer) throws(UploadError) -> Result {
        let longest = max(image.width, image.height)
        let smallestScale = Double(min(minSide, longest)) / Double(longest)
        var over = Try(x: 0, size: steps.last { $0.width == image.width && $0.quality == floor }?.bytes ?? budget + 1)
        var best: (result: Result, x: Double)?
        let target = log(Self.aim * Double(budget))
        for _ in 0..<Self.maxShrinkTries {
            var x: Double
            if let fit = best, fit.result.bytes.count != over.size {
                x = Self.secant(Try(x: fit.x, size: fit.result.bytes.count), over, target: target)
            } else {
                x = over.x + (target - log(Double(over.size))) / Self.sideSlope
            }
            // Always make progress: at least one pixel off the overflowing try's longest side.
            x = min(x, log((exp(over.x) * Double(longest) - 1) / Double(longest)))
            if let fit = best { x = max(x, fit.x) }
            x = max(x, log(smallestScale))
            let width = max(1, Int((Double(image.width) * exp(x)).rounded()))
            let height = max(1, Int((Double(image.height) * exp(x)).rounded()))
            if let fit = best, fit.result.width == width, fit.result.height == height { break }
            let smaller = Resampler.resize(image, width: width, height: height)
            let bytes = try encoded(smaller, floor)
            if bytes.count <= budget {
                best = (Result(bytes: bytes, quality: floor, width: width, height: height), x)
                if Double(bytes.count) >= Self.closeEnough * Double(budget) { break }
            } else {
                over = Try(x: x, size: bytes.count)
                if x <= log(smallestScale) + 1e-9 { break }
            }
        }
        guard let best else {
            let smallest = steps.min { $0.bytes < $1.bytes }
            throw UploadError(.budgetUnreachable,
                              "no encoding fits \(budgetDescription): the smallest tried, \(smallest.map { "\($0.width)x\($0.height) at quality \($0.quality)" } ?? "-"), "
                              + "is \(smallest.map { "\($0.bytes)" } ?? "?") bytes (quality floor \(floor), smallest side allowed \(minSide) px)")
        }
        return best.result
    }

    private var budgetDescription: String { "the budget of \(budget) bytes" }

    private mutating func encoded(_ image: PixelBuffer, _ quality: Int) throws(UploadError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try encode(image, quality)
        } catch {
            throw UploadError(.encodeFailed, error.message)
        }
        steps.append(EncodeStep(width: image.width, height: image.height, quality: quality,
                                bytes: bytes.count, fits: bytes.count <= budget))
        return bytes
    }

    /// Where the line through two tries in (x, ln size) reaches `target`.
    private static func secant(_ a: Try, _ b: Try, target: Double) -> Double {
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
