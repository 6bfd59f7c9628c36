extension VariantParser {
    /// The parameters an upload takes from the variant: its box and how a photo fills it.
    public static let boxNames: Set<String> = ["size", "fit", "bg", "background", "gravity", "focus"]

    /// An upload's box (`size`, `fit`, `bg`, with the gravity or focus a cover crop takes from),
    /// read as a variant is, with `maxSide` for the size limit; nil when none of `size`, `fit`
    /// and `bg` is given (the photo then keeps its own shape). A fit or background without a
    /// size is refused: the box is the size.
    public static func uploadBox(_ fields: VariantFields, maxSide: Int) throws(VariantError) -> Variant? {
        let box = VariantFields(fields.pairs.filter { boxNames.contains($0.name) })
        guard box.pairs.contains(where: { ["size", "fit", "bg", "background"].contains($0.name) }) else { return nil }
        guard box["size"] != nil else {
            throw VariantError(.invalidParameter("size"), "size is the box that fit and bg apply to: give size too (size=1200x1200&fit=pad)")
        }
        var defaults = VariantDefaults()
        defaults.maxSize = maxSide
        return try parse(box, defaults: defaults)
    }
}
