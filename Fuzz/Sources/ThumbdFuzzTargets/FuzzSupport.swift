import ImageCore

/// What every image target shares: small limits, so a fuzzer spends its time in parsers rather
/// than on large pixel buffers, and a few choices taken from the input's last byte.
enum FuzzSupport {
    /// 512 x 512 pixels and 16 MiB of working memory: larger headers are refused, as in production.
    static let limits = DecodeLimits(maxPixels: 512 * 512, maxDecodeBytes: 16 << 20)

    /// The last byte picks decode scales, sizes and encodings; it is usually outside an image's
    /// structure (after the end marker), so changing it changes the choice, not the image.
    static func knob(_ data: [UInt8]) -> Int { Int(data.last ?? 0) }

    static func scale(_ knob: Int) -> DecodeScaleHint {
        DecodeScaleHint(minimumScale: [1, 0.5, 0.26, 0.125, 0.01][knob % 5])
    }

    /// A property the code promises, checked on fuzzed input.
    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFinding) {
        if !condition { throw FuzzFinding(message: message()) }
    }
}

/// A promise the code broke on some input (no crash): libFuzzer's entry point stops on it like on a
/// crash, the regression tests record it as a failure.
public struct FuzzFinding: Error, CustomStringConvertible {
    public let message: String
    public var description: String { "fuzz check failed: \(message)" }
}
