import Foundation

/// Aligned text for people: tables whose columns are padded to their widest cell, and the few
/// number formats every command prints the same way.
public enum TextTable {
    /// The first column (and any in `left`) left-aligned, the others right-aligned.
    public static func render(_ header: [String], _ rows: [[String]], left: Set<Int> = [], indent: String = "  ") -> String {
        let all = [header] + rows
        let count = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: count)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return all.map { row in
            let cells = row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return i == 0 || left.contains(i) ? cell + pad : pad + cell
            }
            return indent + cells.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }.joined(separator: "\n")
    }

    public static func mebibytes(_ bytes: Int?) -> String {
        guard let bytes else { return "-" }
        return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// Bytes in the largest unit that keeps the number at or above 1 (B, KiB, MiB, GiB).
    public static func bytes(_ count: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count), unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    public static func fixed(_ value: Double?, _ digits: Int) -> String {
        guard let value, value.isFinite else { return "-" }
        return String(format: "%.\(digits)f", value)
    }
}
