/// Turning real values into the small integers the hash stores, and back into bytes.
///
/// Every conversion clamps, so a value that strays outside its field (through rounding, or through
/// a hostile hash) can neither spill into the neighbouring bits nor trap in `Int(_:)`.
enum Quantizer {
    /// The nearest integer in `0...maxLevel`, ties away from zero as the reference encoders round
    /// (JavaScript's `Math.round`, Rust's `round`); Python's `round` would send 2.5 to 2 instead.
    static func level(_ value: Double, max maxLevel: Int) -> Int {
        guard value.isFinite else { return 0 }
        return Int(min(max(value.rounded(.toNearestOrAwayFromZero), 0), Double(maxLevel)))
    }
}

enum UnitScale {
    /// A value in full-scale units (0...1) as an 8-bit channel, clamped and rounded to nearest.
    static func byte(_ unit: Double) -> UInt8 {
        guard unit.isFinite else { return 0 }
        return UInt8(min(max(unit, 0), 1) * 255 + 0.5)
    }
}
