import Foundation

/// A byte count as people write it: `307200`, `300KiB`, `300k`, `0.5MiB`, `300KB` (KB and MB are
/// decimal, KiB/K/k and MiB/M binary, as their standards say).
public enum ByteSize {
    public static func parse(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let unitStart = trimmed.firstIndex(where: { !($0.isNumber || $0 == ".") }) else {
            return Int(trimmed).flatMap { $0 >= 0 ? $0 : nil }
        }
        let number = trimmed[..<unitStart]
        let unit = trimmed[unitStart...].trimmingCharacters(in: .whitespaces)
        let multipliers: [String: Double] = [
            "B": 1, "b": 1,
            "K": 1024, "k": 1024, "KiB": 1024, "kiB": 1024, "KB": 1000, "kB": 1000,
            "M": 1_048_576, "m": 1_048_576, "MiB": 1_048_576, "MB": 1_000_000,
        ]
        guard let value = Double(number), value.isFinite, value >= 0,
              let multiplier = multipliers[unit] else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        return bytes < Double(Int.max) ? Int(bytes) : nil
    }

    /// `307200` as "300 KiB", `1536` as "1.5 KiB", `900` as "900 B".
    public static func format(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        if unit == 0 { return "\(bytes) B" }
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? "\(Int(tenths)) \(units[unit])" : "\(tenths) \(units[unit])"
    }
}
