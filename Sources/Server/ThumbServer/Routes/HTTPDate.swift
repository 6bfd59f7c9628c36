import Foundation
import Synchronization

/// The `Date` header, formatted once a second rather than once a response.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((0, ""))

    /// The current second and its header text.
    static var current: (second: Int, text: String) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &now)
        let second = now.tv_sec
        if let text = cache.withLock({ $0.second == second ? $0.text : nil }) { return (second, text) }
        let text = format(Date(timeIntervalSince1970: Double(second)))
        cache.withLock { $0 = (second, text) }
        return (second, text)
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
