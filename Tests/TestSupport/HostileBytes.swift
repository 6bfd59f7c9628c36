import CropScenes
import ImageCore

/// Seeded mutations of a valid file for the codecs' hostile-input suites: every decode must return
/// an image or throw an `ImageError`, quickly; the tally says what came out.
public enum HostileBytes {
    /// Where one suite's header fields are, and the extreme values they are set to.
    public struct Fields: Sendable {
        public var values: [UInt32]
        /// Fields start below this offset.
        public var window: Int
        /// Bytes written per field: little-endian 2 or 4.
        public var widths: [Int]

        public init(values: [UInt32], window: Int, widths: [Int]) {
            self.values = values
            self.window = window
            self.widths = widths
        }
    }

    /// One mutation of `data`: flipped bits, a header field set to an extreme value, a cut with a
    /// flipped bit, or bytes inserted or removed.
    public static func mutate(_ data: [UInt8], _ random: inout SeededRandom, fields: Fields) -> [UInt8] {
        var out = data
        switch random.below(4) {
        case 0:
            for _ in 0..<(1 + random.below(4)) {
                out[random.below(out.count)] ^= UInt8(1 << random.below(8))
            }
        case 1:
            let width = fields.widths[random.below(fields.widths.count)]
            guard out.count > width else { break }
            let value = fields.values[random.below(fields.values.count)]
            let at = random.below(min(out.count - width, fields.window))
            for i in 0..<width { out[at + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
        case 2:
            out = Array(out.prefix(1 + random.below(out.count)))
            if !out.isEmpty { out[random.below(out.count)] ^= UInt8(1 << random.below(8)) }
        default:
            let at = random.below(out.count)
            if random.below(2) == 0 {
                out.insert(contentsOf: (0..<(1 + random.below(8))).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
            } else {
                out.removeSubrange(at..<min(out.count, at + 1 + random.below(8)))
            }
        }
        return out
    }

    /// What `count` mutations of `files` (round robin) came to: outcomes by code ("decoded" for an
    /// image, checked to be whole and within the pixel limit) and the slowest input.
    public struct Tally: Sendable {
        public var outcomes: [String: Int] = [:]
        public var slowest: Duration = .zero
        public var slowestInput = ""

        public subscript(_ code: ImageError.Code) -> Int { outcomes[code.rawValue, default: 0] }
        public var decoded: Int { outcomes["decoded", default: 0] }
    }

    public static func run(_ files: [(name: String, bytes: [UInt8])], count: Int, seed: UInt64, fields: Fields,
                           decode: ([UInt8]) throws(ImageError) -> DecodedImage,
                           alsoRun: ([UInt8]) -> Void = { _ in }) -> Tally {
        var random = SeededRandom(seed: seed)
        var tally = Tally()
        let clock = ThreadCPUClock()
        for i in 0..<count {
            let (name, original) = files[i % files.count]
            let data = mutate(original, &random, fields: fields)
            let started = clock.now
            do throws(ImageError) {
                let image = try decode(data)
                let whole = image.pixels.pixels.count == image.pixels.width * image.pixels.height * 4
                    && image.pixels.width * image.pixels.height <= DecodeLimits.defaultMaxPixels
                tally.outcomes[whole ? "decoded" : "malformed image", default: 0] += 1
            } catch {
                tally.outcomes[error.code.rawValue, default: 0] += 1
            }
            alsoRun(data)
            let elapsed = clock.now - started
            if elapsed > tally.slowest { (tally.slowest, tally.slowestInput) = (elapsed, "mutation \(i) of \(name)") }
        }
        return tally
    }
}
