import ArgumentParser
import Thumbnailer

/// A thumbnail's box, `--shape WxH`: what `crop` crops every method to, and what `thumbnails`
/// times against vipsthumbnail beside its square.
struct BenchShape: Sendable, Equatable, Codable, CustomStringConvertible {
    var width: Int
    var height: Int

    static func square(_ size: Int) -> BenchShape { BenchShape(width: size, height: size) }

    var isSquare: Bool { width == height }

    /// `240x320`, as vipsthumbnail's `--size` and thumbd's `--size` take it.
    var description: String { "\(width)x\(height)" }

    /// What thumbd's CLI is given: `N` for a square, as the bench always passed it, else `WxH`.
    var cliSize: String { isSquare ? String(width) : description }

    /// For headings: `200 px` for a square (as the crop bench always said), `240x320 (3:4)` otherwise.
    var label: String { isSquare ? sizeLabel : "\(description) (\(aspect))" }

    /// `200 px` for a square, `240x320` otherwise.
    var sizeLabel: String { isSquare ? "\(width) px" : description }

    /// The shape in lowest terms: `3:4`, `16:9`.
    var aspect: String {
        func divisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : divisor(b, a % b) }
        let common = divisor(width, height)
        return "\(width / common):\(height / common)"
    }

    /// `WxH`, two whole numbers within thumbd's own size limit. Strict, so that a typo (`300x`,
    /// `300*400`) is refused rather than measuring some other box.
    static func parse(_ text: String) throws -> BenchShape {
        let limit = ThumbnailRequest.sizeRange
        let message = "--shape must be WxH, each side a whole number from \(limit.lowerBound) to \(limit.upperBound) (240x320), not '\(text)'."
        let sides = text.split(separator: "x", omittingEmptySubsequences: false)
        guard sides.count == 2 else { throw ValidationError(message) }
        let numbers = sides.compactMap { side -> Int? in
            guard !side.isEmpty, side.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(side), limit.contains(number) else { return nil }
            return number
        }
        guard numbers.count == 2 else { throw ValidationError(message) }
        return BenchShape(width: numbers[0], height: numbers[1])
    }
}
