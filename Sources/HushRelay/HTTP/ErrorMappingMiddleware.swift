import Hummingbird
import HushDatabase
import Logging
import NIOHTTP1

/// Turns every error into the relay's JSON error body: `RelayError` as is,
/// Hummingbird's own HTTP errors (unknown route, body too large) by status,
/// a request the HTTP parser refused (a malformed chunk, say) into a 400, a
/// full or failing disk into a 503 with Retry-After, and
/// anything else into a 500 whose detail is logged and never sent. Logged
/// paths never carry an identity key (`LoggedPath`).
struct ErrorMappingMiddleware: RouterMiddleware {
    typealias Context = RelayRequestContext
    let logger: Logger
    let metrics: RelayMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let (response, refusal) = map(error, request: request)
            metrics.refused(status: Int(response.status.code), reason: refusal.code.rawValue)
            return response
        }
    }

    /// The response for `error`, and the `RelayError` it was answered as (for the refusal count).
    private func map(_ error: any Error, request: Request) -> (Response, RelayError) {
        func answer(_ error: RelayError) -> (Response, RelayError) { (error.makeResponse(), error) }
        switch error {
        case let error as RelayError:
            if case .internalFailure = error {
                logger.error("request failed", metadata: ["error": "\(error)", "path": "\(LoggedPath(request.uri.path))"])
            }
            return answer(error)
        case let error as HTTPError:
            switch error.status {
            case .notFound: return answer(RelayError.notFound("route"))
            case .contentTooLarge: return answer(RelayError.tooLarge("the request body"))
            case .methodNotAllowed: return answer(RelayError.badRequest("method not allowed"))
            case .badRequest: return answer(RelayError.badRequest("the request could not be parsed"))
            default:
                logger.error("request failed", metadata: ["status": "\(error.status.code)", "path": "\(LoggedPath(request.uri.path))"])
                return answer(RelayError.internalFailure("HTTP \(error.status.code)"))
            }
        case let error as DatabaseError where error.isStorageFailure:
            // A full or failing disk is the relay's state, not a bug: 503 with
            // Retry-After, so clients keep the request and try again later.
            logger.error("storage failed", metadata: ["error": "\(error)", "path": "\(LoggedPath(request.uri.path))"])
            return answer(RelayError.storageUnavailable)
        case let error as BlobDiskFailure:
            logger.error("storage failed", metadata: ["error": "\(error)", "path": "\(LoggedPath(request.uri.path))"])
            return answer(RelayError.storageUnavailable)
        case is HTTPParserError:
            // The client sent bytes that are not HTTP/1.1 (a bad chunk size, say):
            // its mistake, a 4xx; the connection is closed after this answer.
            return answer(RelayError.badRequest("the request could not be parsed as HTTP/1.1"))
        default:
            logger.error("request failed", metadata: ["error": "\(String(describing: type(of: error)))", "path": "\(LoggedPath(request.uri.path))"])
            return answer(RelayError.internalFailure("unexpected"))
        }
    }
}
