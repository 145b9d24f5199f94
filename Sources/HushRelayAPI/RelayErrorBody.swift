/// The body of every error response:
/// `{ "error": { "code": "stable_code", "message": "human text" } }`.
/// Clients branch on `code` (stable), show `message` (may change).
public struct RelayErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: RelayErrorCode, message: String) {
        self.error = Detail(code: code.rawValue, message: message)
    }
}

/// Stable error codes. New codes may be added; existing ones never change meaning.
public enum RelayErrorCode: String, Codable, Sendable, CaseIterable {
    /// 400: the request is not well-formed HTTP for this endpoint (bad path parameter, query).
    case badRequest = "bad_request"
    /// 401: no bearer token, or an unknown or expired one. Authenticate again.
    case unauthorized = "unauthorized"
    /// 401: the challenge signature did not verify, or the challenge is unknown, used or expired.
    case authenticationFailed = "authentication_failed"
    /// 403: the token's identity may not touch this resource.
    case forbidden = "forbidden"
    /// 403: the deposit's delivery credential is not valid for this mailbox.
    case invalidCredential = "invalid_credential"
    /// 404: no such identity, mailbox or blob.
    case notFound = "not_found"
    /// 405: the path exists, but not with this method; `Allow` lists the methods it serves.
    case methodNotAllowed = "method_not_allowed"
    /// 409: the request id was used before with a different envelope.
    case conflict = "conflict"
    /// 409: the registration is older than one already accepted.
    case staleRegistration = "stale_registration"
    /// 413: a body or a field is larger than its limit.
    case tooLarge = "too_large"
    /// 413: the mailbox is over its quota; the owner must sync and acknowledge.
    case quotaExceeded = "quota_exceeded"
    /// 422: the body is not the expected JSON, or a field is invalid. Do not retry unchanged.
    case malformed = "malformed"
    /// 422: a signature (registration proof, prekey) does not verify.
    case invalidSignature = "invalid_signature"
    /// 400: the envelope does not match its `Hush-Envelope-SHA256` / `envelopeSHA256`:
    /// damaged in transit; nothing was stored; send it again (same request id).
    case digestMismatch = "digest_mismatch"
    /// 428: a first-contact deposit needs (more) proof of work; `Hush-Work-Bits` says how much.
    case workRequired = "work_required"
    /// 429: too many requests; wait `Retry-After` seconds.
    case rateLimited = "rate_limited"
    /// 500: the relay failed; retry later with backoff.
    case internalError = "internal_error"
    /// 503: the relay is shutting down or overloaded; retry later.
    case unavailable = "unavailable"
}
