import Hummingbird

/// Times every request by its route template (the matched route's pattern,
/// `{identity}` where a key was), never the concrete path.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let metrics: RelayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let route = context.endpointPath ?? "unmatched"
        defer { metrics.requestDuration(route: route, method: request.method.rawValue, ContinuousClock.now - started) }
        return try await next(request, context)
    }
}
