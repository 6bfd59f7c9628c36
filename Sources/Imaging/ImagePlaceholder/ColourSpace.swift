/// The LPQ colour space ThumbHash works in: luma, yellow-blue and red-green.
///
/// Separating luma lets the hash spend most of its nibbles where the eye sees detail; the two
/// chroma axes get a coarse 3x3 triangle each. All values are in units of full scale (0...1).
enum ColourSpace {
    static func lpq(r: Double, g: Double, b: Double) -> (l: Double, p: Double, q: Double) {
        ((r + g + b) / 3, (r + g) / 2 - b, r - g)
    }

    /// The inverse of `lpq`, written as the reference decoders write it so previews agree with theirs.
    static func rgb(l: Double, p: Double, q: Double) -> (r: Double, g: Double, b: Double) {
        let b = l - 2 / 3 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }
}
