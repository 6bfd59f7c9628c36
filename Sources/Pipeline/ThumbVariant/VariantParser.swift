import Thumbnailer

/// The one reader of a variant, for every door: names, values, defaults, limits and the rules
/// between parameters (a preset alone; a gravity only for cover; a background only for pad).
public enum VariantParser {
    /// The parameters a variant has, in the order messages list them. `quality` and `background`
    /// are accepted as other spellings of `q` and `bg` (presets and the command line use the long ones).
    public static let names = ["preset", "size", "fit", "gravity", "focus", "trim", "bg", "dpr", "format", "q", "max_bytes"]
    static let aliases = ["quality": "q", "background": "bg"]

    /// Whether `name` is a variant parameter at all (its own spelling or another).
    public static func isVariantName(_ name: String) -> Bool { names.contains(name) || aliases[name] != nil }

    /// The variant `fields` name, checked against `defaults`' limits and completed from them; a
    /// preset's, when they name one. Names that are not variant parameters are refused unless
    /// `ignoring` lists them (the query's `url` and `sig`).
    public static func parse(_ fields: VariantFields, defaults: VariantDefaults, ignoring others: Set<String> = []) throws(VariantError) -> Variant {
        var given: [String: VariantFields.Value] = [:]
        var spelling: [String: String] = [:]
        var order: [String] = []
        for (name, value) in fields.pairs where !others.contains(name) {
            let canonical = aliases[name] ?? name
            guard names.contains(canonical) else {
                throw VariantError(.unknownParameter(name), "unknown parameter \"\(name)\"; the variant's are \(names.joined(separator: ", "))")
            }
            if let earlier = spelling[canonical] {
                // A repeated name: the first counts. Two spellings of one name: a mistake somewhere.
                guard earlier == name else {
                    throw VariantError(.invalidParameter(canonical), "give \(earlier) or \(name), not both")
                }
                continue
            }
            given[canonical] = value
            spelling[canonical] = name
            order.append(name)
        }
        if let preset = given["preset"] {
            return try self.preset(try text("preset", preset), others: order.filter { $0 != "preset" }, defaults: defaults)
        }
        guard !defaults.onlyPresets else {
            throw VariantError(.presetRequired, "this daemon makes only its presets: ask for preset=NAME (\(defaults.presetList))")
        }
        return try spelledOut(given, defaults: defaults)
    }

    /// A preset is the whole variant: a size or format beside it would be quietly ignored or
    /// quietly make another one, so it is refused.
    private static func preset(_ name: String, others: [String], defaults: VariantDefaults) throws(VariantError) -> Variant {
        guard others.isEmpty else {
            throw VariantError(.invalidParameter("preset"), "preset names the whole variant: give preset or \(others.joined(separator: ", ")), not both")
        }
        guard var variant = defaults.presets[name] else {
            throw VariantError(.unknownPreset(name), "no preset \"\(name)\" (\(defaults.presetList))")
        }
        variant.preset = name
        return variant
    }

    private static func spelledOut(_ given: [String: VariantFields.Value], defaults: VariantDefaults) throws(VariantError) -> Variant {
        let (width, height) = try given["size"].map { value throws(VariantError) in try size(value, limit: defaults.maxSize) }
            ?? (defaults.size, defaults.size)
        let fitText = try given["fit"].map { value throws(VariantError) in try text("fit", value) } ?? Fit.cover.rawValue
        guard let fit = Fit(rawValue: fitText) else {
            throw VariantError(.invalidParameter("fit"), "fit must be cover, contain or pad, not \"\(fitText)\"")
        }
        let gravityText = try given["gravity"].map { value throws(VariantError) in try text("gravity", value) }
        let focusText = try given["focus"].map { value throws(VariantError) in try text("focus", value) }
        if fit == .pad, gravityText != nil || focusText != nil {
            throw VariantError(.invalidParameter(gravityText != nil ? "gravity" : "focus"),
                               "\(gravityText != nil ? "gravity" : "focus") applies to fit=cover only: fit=pad keeps the whole photo, centred")
        }
        let gravity: Gravity
        do { gravity = try Gravity.requested(gravity: gravityText, focus: focusText) ?? defaults.gravity } catch {
            throw VariantError(.invalidParameter(focusText != nil && gravityText == nil ? "focus" : "gravity"), error.message)
        }
        let trim = try given["trim"].map { value throws(VariantError) in try flag("trim", value) } ?? false
        let formatText = try given["format"].map { value throws(VariantError) in try text("format", value) } ?? Variant.Format.auto.rawValue
        guard let format = Variant.Format(rawValue: formatText.lowercased() == "jpg" ? "jpeg" : formatText.lowercased()) else {
            throw VariantError(.invalidParameter("format"), "format must be auto, jpeg, png, webp, avif or jxl, not \"\(formatText)\"")
        }
        var background: PadBackground?
        if let value = given["bg"] {
            guard fit == .pad else {
                throw VariantError(.invalidParameter("bg"), "bg fills the bands of fit=pad; with fit=\(fit.rawValue) there are none")
            }
            // YAML reads `bg: 000100` as a number (an octal one, even): its digits are lost, so a
            // colour of digits alone must be quoted.
            if case .number = value {
                throw VariantError(.invalidParameter("bg"), "bg must be text: quote a colour of digits alone (bg: \"000100\"), not \(describe(value))")
            }
            background = try self.background(try text("bg", value))
            if background == .transparent, !format.carriesAlpha {
                throw VariantError(.invalidParameter("bg"), "bg=transparent needs a format with alpha (png, webp, avif or auto), not jpeg")
            }
        }
        let quality = try given["q"].map { value throws(VariantError) in try whole("q", value) } ?? defaults.quality
        guard VariantDefaults.qualityRange.contains(quality) else {
            throw VariantError(.invalidParameter("q"), "q must be between 1 and 100, not \(quality)")
        }
        let maxBytes = try given["max_bytes"].map { value throws(VariantError) in try whole("max_bytes", value) }
        if let maxBytes, !VariantDefaults.maxBytesRange.contains(maxBytes) {
            throw VariantError(.invalidParameter("max_bytes"),
                               "max_bytes must be a byte count from 1 to \(VariantDefaults.maxBytesRange.upperBound), not \(maxBytes)")
        }
        let dpr = try given["dpr"].map { value throws(VariantError) in try self.dpr(value) } ?? 1
        let (pixelWidth, pixelHeight) = scaled(width, height, by: dpr, limit: defaults.maxSize)
        return Variant(width: pixelWidth, height: pixelHeight, fit: fit, gravity: gravity, trim: trim, background: background,
                       format: format, quality: quality, maxBytes: maxBytes)
    }

    /// `N` (a square) or `WxH`, each side 1 to `limit`.
    static func size(_ value: VariantFields.Value, limit: Int) throws(VariantError) -> (Int, Int) {
        let grammar = "size must be N or WxH, each side a whole number from 1 to \(limit) (size=200, size=300x400)"
        let text: String
        switch value {
        case .number(let number):
            guard number.rounded() == number, abs(number) < 1e9 else { throw VariantError(.invalidParameter("size"), grammar + ", not \(number)") }
            text = String(Int(number))
        case .text(let string): text = string
        default: throw VariantError(.invalidParameter("size"), grammar)
        }
        let sides = text.split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(sides.count) else { throw VariantError(.invalidParameter("size"), grammar + ", not \"\(text)\"") }
        var numbers: [Int] = []
        for side in sides {
            guard !side.isEmpty, side.allSatisfy(\.isASCII), side.allSatisfy(\.isNumber), let number = Int(side), (1...limit).contains(number) else {
                throw VariantError(.invalidParameter("size"), grammar + ", not \"\(text)\"")
            }
            numbers.append(number)
        }
        return (numbers[0], numbers.last!)
    }

    /// `width` x `height` times `dpr`, shrunk together (keeping the shape) until both fit `limit`.
    static func scaled(_ width: Int, _ height: Int, by dpr: Double, limit: Int) -> (Int, Int) {
        guard dpr != 1 else { return (width, height) }
        let factor = min(dpr, Double(limit) / Double(max(width, height)))
        let scaled = { (side: Int) in min(limit, max(1, Int((Double(side) * factor).rounded()))) }
        return (scaled(width), scaled(height))
    }

    static func dpr(_ value: VariantFields.Value) throws(VariantError) -> Double {
        let message = "dpr must be a number from 1 to 4 (dpr=2, dpr=1.5)"
        let number: Double?
        switch value {
        case .number(let given): number = given
        case .text(let text): number = text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) ? Double(text) : nil
        default: number = nil
        }
        guard let number, VariantDefaults.dprRange.contains(number) else {
            throw VariantError(.invalidParameter("dpr"), message + ", not \(describe(value))")
        }
        return number
    }

    /// `RRGGBB` (with or without `#`), `auto`, `blur` or `transparent`.
    static func background(_ text: String) throws(VariantError) -> PadBackground {
        switch text.lowercased() {
        case "auto": return .auto
        case "blur": return .blur
        case "transparent": return .transparent
        case "white": return .white
        case "black": return .color(red: 0, green: 0, blue: 0)
        default:
            var hex = Substring(text)
            if hex.first == "#" { hex = hex.dropFirst() }
            guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else {
                throw VariantError(.invalidParameter("bg"), "bg must be a colour RRGGBB (bg=ffffff), auto, blur or transparent, not \"\(text)\"")
            }
            return .color(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
        }
    }

    static func text(_ name: String, _ value: VariantFields.Value) throws(VariantError) -> String {
        guard case .text(let text) = value else { throw VariantError(.invalidParameter(name), "\(name) must be text, not \(describe(value))") }
        return text
    }

    static func whole(_ name: String, _ value: VariantFields.Value) throws(VariantError) -> Int {
        switch value {
        case .number(let number) where number.rounded() == number && abs(number) < 1e15: return Int(number)
        case .text(let text):
            if let number = Int(text) { return number }
        default: break
        }
        throw VariantError(.invalidParameter(name), "\(name) must be a whole number, not \(describe(value))")
    }

    /// A yes/no: a boolean, or the text `1`, `true`, `yes`, empty / `0`, `false`, `no`, in any case.
    static func flag(_ name: String, _ value: VariantFields.Value) throws(VariantError) -> Bool {
        switch value {
        case .flag(let flag): return flag
        case .text(let text):
            switch text.lowercased() {
            case "", "1", "true", "yes": return true
            case "0", "false", "no": return false
            default: break
            }
        default: break
        }
        throw VariantError(.invalidParameter(name), "\(name) must be true or false, not \(describe(value))")
    }

    static func describe(_ value: VariantFields.Value) -> String {
        switch value {
        case .text(let text): "\"\(text)\""
        case .number(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .flag(let flag): String(flag)
        case .other(let text): text
        }
    }
}
