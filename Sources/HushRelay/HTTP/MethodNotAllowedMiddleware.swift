import HTTPTypes
import Hummingbird

/// 405 with `Allow` (RFC 9110 §15.5.6) for a path the relay serves asked with
/// a method it does not serve there, where the router alone answers 404 as
/// for an unknown path. Added after every route, so that it wraps only the
/// router's not-found responder: a request that reaches it matched no route.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext

    /// Each routed path with the methods it serves, most literal paths first
    /// (the router's trie prefers `/v1/blobs/uploads` to `/v1/blobs/{id}`).
    private let paths: [(path: RouterPath, methods: [HTTPRequest.Method])]

    init(routes: [Router<Context>.RouteDescription]) {
        var byPath: [String: (RouterPath, [HTTPRequest.Method])] = [:]
        for route in routes { byPath[route.path.description, default: (route.path, [])].1.append(route.method) }
        paths = byPath.values
            .map { (path: $0.0, methods: $0.1.sorted { $0.rawValue < $1.rawValue }) }
            .sorted { Self.literalElements($0.path) > Self.literalElements($1.path) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let allowed = allowedMethods(for: request.uri.path) { throw RelayError.methodNotAllowed(allowed: allowed.map(\.rawValue)) }
        return try await next(request, context)
    }

    /// The methods served at `path`, or nil when no route has that shape.
    func allowedMethods(for path: String) -> [HTTPRequest.Method]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return paths.first { candidate in
            candidate.path.components.count == segments.count && zip(candidate.path.components, segments).allSatisfy { $0 ~= $1 }
        }?.methods
    }

    private static func literalElements(_ path: RouterPath) -> Int {
        path.components.filter { element in element.description.first != "{" && element.description.first != ":" }.count
    }
}
