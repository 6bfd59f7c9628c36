/// A point of the upright photo (after its EXIF orientation), as fractions of its width and height
/// from the top-left corner: `0.5,0.5` is the middle. Held in thousandths, so two requests that
/// round to the same point are one variant with one cache key, and its text reads back exactly.
public struct FocusPoint: Sendable, Hashable, CustomStringConvertible {
    /// Thousandths of the width and height, 0...1000.
    public let xThousandths: Int
    public let yThousandths: Int

    public var x: Double { Double(xThousandths) / 1000 }
    public var y: Double { Double(yThousandths) / 1000 }

    /// Nil outside 0...1 (or not finite); finer than a thousandth is rounded.
    public init?(x: Double, y: Double) {
        guard x.isFinite, y.isFinite, (0...1).contains(x), (0...1).contains(y) else { return nil }
        xThousandths = Int((x * 1000).rounded())
        yThousandths = Int((y * 1000).rounded())
    }

    /// `X,Y`, two decimal fractions (`0.25,0.6`, `1,0`); nil for anything else, including
    /// exponents, signs, spaces and values outside 0...1.
    public init?(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Self.fraction(parts[0]), let y = Self.fraction(parts[1]) else { return nil }
        self.init(x: x, y: y)
    }

    /// Plain decimals only: `Double("1e-1")`, `"+0.5"`, `"nan"` and `"0x1p-1"` would parse, and a
    /// point has one spelling in the docs.
    private static func fraction(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.count <= 32, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              text.filter({ $0 == "." }).count <= 1, text.first != ".", text.last != "." else { return nil }
        return Double(text)
    }

    /// Three decimals each, `0.250,0.600`: the text in the variant and in the queries thumbd writes.
    public var description: String { Self.decimals(xThousandths) + "," + Self.decimals(yThousandths) }

    private static func decimals(_ thousandths: Int) -> String {
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
