/// SplitMix64: a seeded generator, so the same seed makes the same scenes on every machine.
public struct SceneRandom: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range`, from the generator's own bits (Swift's `Double.random(in:using:)` is
    /// not promised to stay the same across versions).
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }

    public mutating func index(_ count: Int) -> Int { Int(next() % UInt64(max(1, count))) }

    public mutating func coin() -> Bool { next() & 1 == 1 }
}
