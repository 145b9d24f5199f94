import Hummingbird
import Logging

/// Turns every error into the relay's JSON error body: `RelayError` as is,
/// Hummingbird's own HTTP errors (unknown route, body too large) by status,
/// anything else into a 500 whose detail is logged and never sent.
struct ErrorMappingMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as RelayError {
            if case .internalFailure = error { logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"]) }
            return error.makeResponse()
        } catch let error as HTTPError {
            switch error.status {
            case .notFound: return RelayError.notFound("route").makeResponse()
            case .contentTooLarge: return RelayError.tooLarge("the request body").makeResponse()
            case .methodNotAllowed: return RelayError.badRequest("method not allowed").makeResponse()
            case .badRequest: return RelayError.badRequest("the request could not be parsed").makeResponse()
            default:
                logger.error("request failed", metadata: ["status": "\(error.status.code)", "path": "\(request.uri.path)"])
                return RelayError.internalFailure("HTTP \(error.status.code)").makeResponse()
            }
        } catch {
            logger.error("request failed", metadata: ["error": "\(String(describing: type(of: error)))", "path": "\(request.uri.path)"])
            return RelayError.internalFailure("unexpected").makeResponse()
        }
    }
}
