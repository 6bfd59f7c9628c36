import ThumbVariant

extension Problem {
    /// The HTTP form of a refused variant: 400 `invalid_parameter` naming the parameter,
    /// 400 `unknown_preset`, or 403 `preset_required` under `server.only_presets`.
    init(_ error: VariantError) {
        switch error.kind {
        case .invalidParameter, .unknownParameter: self = .badParameter(error.message)
        case .unknownPreset: self.init(.badRequest, code: "unknown_preset", detail: error.message)
        case .presetRequired: self.init(.forbidden, code: "preset_required", detail: error.message)
        }
    }
}

extension ServerSettings {
    /// `fields` read as a variant against this daemon's defaults, limits and presets; a refusal as its problem.
    func variant(_ fields: VariantFields, ignoring others: Set<String> = []) throws -> Variant {
        do { return try VariantParser.parse(fields, defaults: variants, ignoring: others) } catch { throw Problem(error) }
    }
}
