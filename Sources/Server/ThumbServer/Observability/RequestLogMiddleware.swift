import HTTPTypes
import Hummingbird
import Logging

/// One access-log line per request (method, path, status, time, cache tier) and the duration histogram.
/// Errors are turned into problem+json here too, so the line logs the status the client saw; the
/// router's "no route" becomes 405 with `Allow` when the path exists under other methods.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    let logger: Logger
    let accessLog: AccessLog?
    let retryAfter: Int
    let readiness: Readiness
    let methods: RouteMethods

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let route = Self.route(request.uri.path)
        do {
            var response = try await next(request, context)
            if readiness.isDraining { response.headers[.connection] = "close" }
            finish(request, status: response.status.code, cache: response.headers[.xCache], start: start, route: route)
            return response
        } catch is CancellationError {
            finish(request, status: 499, cache: nil, start: start, route: route)
            throw CancellationError()
        } catch {
            var problem: Problem
            if let error = error as? HTTPError, error.status == .notFound, let allowed = methods.allowed(for: request.uri.path),
               !allowed.contains(request.method.rawValue) {
                // Only the router's not-found responder throws HTTPError(.notFound) (routes throw
                // Problems): the path is known, so it is the method that is not.
                problem = .methodNotAllowed(request.method.rawValue, allowed: allowed)
            } else if let error = error as? HTTPError {
                problem = Problem(error.status, code: error.status == .notFound ? "not_found" : "http_error",
                                  detail: error.body ?? error.status.reasonPhrase)
            } else {
                problem = Problem.from(error, retryAfter: retryAfter)
            }
            if problem.statusCode >= 500, problem.code == "internal_error" {
                logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            }
            finish(request, status: problem.statusCode, cache: nil, start: start, route: route, code: problem.code)
            if readiness.isDraining { problem.closesConnection = true }
            throw problem
        }
    }

    private func finish(_ request: Request, status: Int, cache: String?, start: ContinuousClock.Instant, route: Int, code: String? = nil) {
        let elapsed = ContinuousClock.now - start
        metrics.recordRequest(route: route, status: status, duration: elapsed)
        accessLog?.record(method: request.method.rawValue, path: request.uri.path, status: status, elapsed: elapsed,
                          cache: cache, code: code)
    }

    /// The index of the route in `ServerMetrics.routes`.
    static func route(_ path: String) -> Int {
        if path == "/v1/thumbnail" { return 0 }
        if path.hasPrefix("/v1/cache") { return 1 }
        if path == "/metrics" { return 2 }
        if path == "/healthz" { return 3 }
        if path.hasPrefix("/v1/prefetch") { return 4 }
        if path.hasPrefix("/v1/uploads") { return 5 }
        return 6
    }
}
