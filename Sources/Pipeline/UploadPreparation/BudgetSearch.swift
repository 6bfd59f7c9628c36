import Foundation
import ImageCore
import ImageOps
import Thumbnailer

/// Finds the encoding that lands closest under a byte budget with as few encodes as it can.
///
/// Quality first (`QualitySearch`, as a thumbnail's byte cap searches it). Only when the floor
/// quality still overflows do the dimensions shrink, at the floor quality, by the same kind of
/// search on scale. Every byte array it returns has been measured against the budget: it can fail,
/// never overflow.
struct BudgetSearch {
    let budget: Int
    let ceiling: Int
    let floor: Int
    let minSide: Int
    let encode: (PixelBuffer, Int) throws(ImageError) -> [UInt8]
    private(set) var steps: [EncodeStep] = []

    static let maxShrinkTries = 8
    /// d ln(size) / d ln(side): a bit under 2, since smaller images hold denser detail per pixel.
    static let sideSlope = 1.7

    struct Result {
        var bytes: [UInt8]
        var quality: Int
        var width: Int
        var height: Int
    }

    private typealias Try = QualitySearch.Try

    mutating func run(_ image: PixelBuffer) throws(UploadError) -> Result {
        let fitted = try QualitySearch.highestFitting(budget: budget, ceiling: ceiling, floor: floor) { (quality) throws(UploadError) in
            try encoded(image, quality)
        }
        if let fitted { return Result(bytes: fitted.bytes, quality: fitted.quality, width: image.width, height: image.height) }
        return try shrink(image)
    }

    /// At the floor quality, the largest size that fits, searched on the scale of both sides.
    private mutating func shrink(_ image: PixelBuffer) throws(UploadError) -> Result {
        let longest = max(image.width, image.height)
        let smallestScale = Double(min(minSide, longest)) / Double(longest)
        var over = Try(x: 0, size: steps.last { $0.width == image.width && $0.quality == floor }?.bytes ?? budget + 1)
        var best: (result: Result, x: Double)?
        let target = log(QualitySearch.aim * Double(budget))
        for _ in 0..<Self.maxShrinkTries {
            var x: Double
            if let fit = best, fit.result.bytes.count != over.size {
                x = QualitySearch.secant(Try(x: fit.x, size: fit.result.bytes.count), over, target: target)
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
                if Double(bytes.count) >= QualitySearch.closeEnough * Double(budget) { break }
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
}
