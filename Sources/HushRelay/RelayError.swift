import Foundation
import Hummingbird
import HushRelayAPI

/// Every failure the relay reports to a client. Each maps to one HTTP status
/// and one stable code; messages say what the client can do and never which
/// internal check failed or any secret.
public enum RelayError: Error, Sendable, Equatable, CustomStringConvertible {
    case badRequest(String)
    case unauthorized
    case authenticationFailed
    /// The token request names no origin (the old, unbound format) or
    /// another relay's origin or key pin; the reason says which.
    case loginRefused(String)
    case forbidden
    case invalidCredential
    case notFound(String)
    /// The path exists but not with this method; `allowed` goes in `Allow`.
    case methodNotAllowed(allowed: [String])
    case conflict(String)
    case staleRegistration
    case tooLarge(String)
    case quotaExceeded
    /// The uploader's blob quota (bytes or count) is used up.
    case blobQuotaExceeded(String)
    /// The relay's blob storage as a whole (every uploader's) is used up.
    case blobStorageFull(totalMiB: Int)
    /// The source address uploaded more blob bytes than its bucket holds.
    case blobBytesRateLimited(retryAfterSeconds: Int)
    case malformed(String)
    case invalidSignature(String)
    case rateLimited(retryAfterSeconds: Int)
    /// A first-contact deposit without enough proof of work (`FirstContactWork`).
    case workRequired(bits: Int)
    case unavailable
    /// The deposited envelope does not match the digest sent with it.
    case digestMismatch
    /// The database or disk failed (full, an I/O error): nothing was stored,
    /// and the client should retry later.
    case storageUnavailable
    /// A storage or file-system failure; detail goes to the log, not the client.
    case internalFailure(String)

    public var status: HTTPResponse.Status {
        switch self {
        case .badRequest, .digestMismatch: .badRequest
        case .unauthorized, .authenticationFailed, .loginRefused: .unauthorized
        case .forbidden, .invalidCredential: .forbidden
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict, .staleRegistration: .conflict
        case .tooLarge, .quotaExceeded, .blobQuotaExceeded, .blobStorageFull: .contentTooLarge
        case .malformed, .invalidSignature: .unprocessableContent
        case .rateLimited, .blobBytesRateLimited: .tooManyRequests
        case .workRequired: .preconditionRequired
        case .unavailable, .storageUnavailable: .serviceUnavailable
        case .internalFailure: .internalServerError
        }
    }

    public var code: RelayErrorCode {
        switch self {
        case .badRequest: .badRequest
        case .digestMismatch: .digestMismatch
        case .unauthorized: .unauthorized
        case .authenticationFailed, .loginRefused: .authenticationFailed
        case .forbidden: .forbidden
        case .invalidCredential: .invalidCredential
        case .notFound: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .conflict: .conflict
        case .staleRegistration: .staleRegistration
        case .tooLarge: .tooLarge
        case .quotaExceeded, .blobQuotaExceeded, .blobStorageFull: .quotaExceeded
        case .malformed: .malformed
        case .invalidSignature: .invalidSignature
        case .rateLimited, .blobBytesRateLimited: .rateLimited
        case .workRequired: .workRequired
        case .unavailable, .storageUnavailable: .unavailable
        case .internalFailure: .internalError
        }
    }

    /// What the client reads.
    public var clientMessage: String {
        switch self {
        case let .badRequest(what): "bad request: \(what)"
        case .unauthorized: "missing, unknown or expired token: authenticate again"
        case .authenticationFailed: "authentication failed: request a new challenge and sign it with the identity key"
        case let .loginRefused(why): why
        case .forbidden: "this token's identity may not access this resource"
        case .invalidCredential: "the delivery credential is not valid for this mailbox: ask the recipient for a new one"
        case let .notFound(what): "\(what) not found"
        case let .methodNotAllowed(allowed): "this path is served with \(allowed.joined(separator: ", ")) only (see Allow)"
        case let .conflict(what): what
        case .staleRegistration: "a newer registration of this identity exists: register with the current time"
        case let .tooLarge(what): "\(what) is larger than the relay accepts"
        case .quotaExceeded: "the mailbox is full: its owner must sync and acknowledge; retry later"
        case let .blobQuotaExceeded(what): "your blob storage is full (\(what)): wait for older blobs to expire"
        case let .blobStorageFull(total):
            "the relay's storage for attachments is full (\(total) MiB for all users): retry once older attachments expire, or ask the relay's operator"
        case let .blobBytesRateLimited(seconds):
            "too many attachment bytes uploaded from your network address: retry after \(seconds) s"
        case let .malformed(what): "malformed request: \(what)"
        case let .invalidSignature(what): "the signature on the \(what) does not verify"
        case let .rateLimited(seconds): "too many requests: retry after \(seconds) s"
        case let .workRequired(bits): "a first-contact deposit needs proof of work of \(bits) bits (see Hush-Work-Bits): compute it and retry"
        case .unavailable: "the relay is unavailable: retry later"
        case .digestMismatch: "the envelope does not match its SHA-256: it was damaged on the way; nothing was stored: send it again with the same request id"
        case .storageUnavailable: "the relay cannot store anything now (its disk is full or failing); nothing was stored: retry later"
        case .internalFailure: "the relay failed to complete the request: retry later"
        }
    }

    public var description: String {
        switch self {
        case let .internalFailure(detail): "internal failure: \(detail)"
        default: "\(code.rawValue): \(clientMessage)"
        }
    }
}

extension RelayError {
    /// A deposit's whole-request refusal (`DepositRules`) as the relay answers it.
    init(_ problem: DepositRules.Problem) {
        switch problem {
        case let .malformed(what): self = .malformed(what)
        case let .tooLarge(what): self = .tooLarge(what)
        case .digestMismatch: self = .digestMismatch
        }
    }
}

extension RelayError: HTTPResponseError {
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        makeResponse()
    }

    /// The JSON error response, with `Retry-After` for 429 and 503.
    public func makeResponse() -> Response {
        let body = RelayErrorBody(code: code, message: clientMessage)
        var headers: HTTPFields = [.contentType: "application/json"]
        switch self {
        case let .rateLimited(seconds), let .blobBytesRateLimited(seconds): headers[.retryAfter] = String(max(1, seconds))
        case let .workRequired(bits): headers[HTTPFields.Element.Name(FirstContactWork.bitsHeader)!] = String(bits)
        case let .methodNotAllowed(allowed): headers[.allow] = allowed.joined(separator: ", ")
        case .unavailable: headers[.retryAfter] = "5"
        case .storageUnavailable: headers[.retryAfter] = "30"
        default: break
        }
        let data = (try? JSONEncoder().encode(body)) ?? Data()
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
