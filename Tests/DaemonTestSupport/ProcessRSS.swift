import Foundation

/// This process's resident memory (VmRSS), in bytes: what an in-process daemon costs while it works.
public enum ProcessRSS {
    public static func current() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib * 1024
    }
}
