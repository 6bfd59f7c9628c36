import HTTPTypes
import Hummingbird
import Synchronization

/// The methods each registered path answers, so a request for a known path with a method it lacks
/// is 405 with `Allow` (RFC 9110 §15.5.6) rather than the router's 404, which means "no such path".
///
/// Hummingbird's router sends both cases to its not-found responder; `RequestLogMiddleware` asks
/// this table only then, so a routed request pays nothing for it. The table is filled once, after
/// every route is registered (the middleware has to be added before them).
final class RouteMethods: Sendable {
    private struct Entry: Sendable {
        let components: [RouterPath.Element]
        var methods: Set<HTTPRequest.Method>
    }

    private let entries = Mutex<[Entry]>([])

    /// Records the router's routes; a path with GET also answers HEAD (the router generates it).
    func record(_ routes: [Router<ThumbdRequestContext>.RouteDescription]) {
        var table: [Entry] = []
        for route in routes {
            let components = route.path.components
            let methods: Set<HTTPRequest.Method> = route.method == .get ? [.get, .head] : [route.method]
            if let index = table.firstIndex(where: { $0.components == components }) {
                table[index].methods.formUnion(methods)
            } else {
                table.append(Entry(components: components, methods: methods))
            }
        }
        entries.withLock { $0 = table }
    }

    /// The methods `path` answers, sorted (the `Allow` value), or nil when no route has this path.
    /// Segments are split as the router splits them (empty ones dropped), so both agree on which
    /// paths exist.
    func allowed(for path: String) -> [String]? {
        let segments = path.split(separator: "/")
        let methods = entries.withLock { table in
            table.first { entry in
                entry.components.count == segments.count && zip(entry.components, segments).allSatisfy { $0 ~= $1 }
            }?.methods
        }
        return methods.map { $0.map(\.rawValue).sorted() }
    }
}
