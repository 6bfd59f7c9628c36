import ImageCore

/// The ISO-BMFF boxes at the top of an AVIF file, checked whole (ISOBMFFTopLevel: a cut inside a box
/// is `truncated_image`) before libavif sees the data, and its brands.
struct AVIFContainer {
    let majorBrand: String
    let compatibleBrands: [String]

    static let avifBrands: Set<String> = ["avif", "avis"]

    /// Validates the box structure of the whole file and the brands of its `ftyp`.
    ///
    /// `truncated_image` when the data ends inside a box (header or payload); `corrupt_image` when it
    /// is not ISO-BMFF at all or a box header is impossible; `unsupported_format` for an ISO-BMFF
    /// file whose brands are not AVIF's (HEIC, MP4, …).
    init(_ data: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        let top = try ISOBMFFTopLevel(data, format: "AVIF")
        self.majorBrand = top.majorBrand
        self.compatibleBrands = top.compatibleBrands
        guard top.brands.contains(where: Self.avifBrands.contains) else {
            let named = top.brands.map { "'\($0)'" }.joined(separator: ", ")
            throw .unsupported("an ISO-BMFF file whose brands (\(named)) are not AVIF's (HEIC or another HEIF or MP4 format)")
        }
    }
}
