import Foundation
import ThumbCache

/// A query string as ordered name/value pairs, percent-decoded (`+` stays `+`: URLs in `url=`
/// keep their plus signs).
struct QueryParameters: Sendable {
    let pairs: [(String, String)]

    init(_ query: String?) {
        guard let query, !query.isEmpty else {
            pairs = []
            return
        }
        pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]), value = parts.count > 1 ? String(parts[1]) : ""
            return (name.removingPercentEncoding ?? name, value.removingPercentEncoding ?? value)
        }
    }

    subscript(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    /// `sort`, one of the listing's orders; last access when absent.
    func order() throws -> CacheEntryOrder {
        let text = self["sort"] ?? CacheEntryOrder.lastAccess.rawValue
        guard let order = CacheEntryOrder(rawValue: text) else {
            throw Problem.badParameter("sort must be one of \(CacheEntryOrder.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return order
    }

    /// A yes/no parameter: empty, `1`, `true`, `yes` / `0`, `false`, `no`, in any case.
    static func flag(_ name: String, _ text: String) throws -> Bool {
        switch text.lowercased() {
        case "", "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw Problem.badParameter("\(name) must be true or false, not \"\(text)\"")
        }
    }

    /// Refuses a parameter the route does not read: a misspelt one would otherwise change nothing
    /// without a word (`hots=` evicting every host's nothing, `srot=` listing in the default order).
    func refuseOthers(than names: [String]) throws {
        if let unknown = pairs.first(where: { !names.contains($0.0) }) {
            throw Problem.badParameter("unknown parameter \"\(unknown.0)\"; the parameters are \(names.joined(separator: ", "))")
        }
    }

    func int(_ name: String) throws -> Int? {
        guard let text = self[name] else { return nil }
        guard let value = Int(text) else { throw Problem.badParameter("\(name) must be a whole number, not \"\(text)\"") }
        return value
    }
}
