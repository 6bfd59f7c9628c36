import Foundation
import Synchronization

/// The `Date` header, formatted once a second rather than once a response.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((0, ""))

    static var now: String {
        let second = Int(Date().timeIntervalSince1970)
        if let text = cache.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = format(Date(timeIntervalSince1970: Double(second)))
        cache.withLock { $0 = (second, text) }
        return text
    }

    static func format(_ date: Date) -> String {
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
