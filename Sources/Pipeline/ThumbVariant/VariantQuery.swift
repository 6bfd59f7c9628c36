extension Variant {
    /// The parameters that ask for this variant, as a query or a prefetch body writes them (the
    /// fleet's entry-point requests, the prefetch client): the preset's name when a preset named
    /// it, else every part spelled out, so the receiving daemon's own defaults change nothing.
    public var parameters: [(name: String, value: String)] {
        if let preset { return [("preset", preset)] }
        var pairs: [(name: String, value: String)] = [("size", cacheVariant.sizeText), ("fit", fit.rawValue)]
        // contain names its (centre) gravity too, as the queries written before pad existed did.
        if fit != .pad { pairs.append(gravity.queryParameter) }
        if let background { pairs.append(("bg", Self.text(of: background))) }
        pairs += [("format", format.rawValue), ("q", String(quality))]
        if let maxBytes { pairs.append(("max_bytes", String(maxBytes))) }
        if trim { pairs.append(("trim", "1")) }
        return pairs
    }
}
