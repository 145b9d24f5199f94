/// What went wrong talking to the relay, shaped for the messenger's decisions:
/// 401 → authenticate again; 422 → do not retry; 429 → wait `retryAfter`;
/// 5xx and transport failures → retry with backoff.
public enum RelayClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The relay answered with an error status and its JSON error body.
    case http(status: Int, code: String, message: String, retryAfterSeconds: Int?)
    /// The connection failed or timed out before an answer.
    case transport(String)
    /// The relay's answer did not decode, or a bundle failed verification.
    case invalidResponse(String)
    /// A call that needs a token was made before `authenticate`.
    case notAuthenticated
    /// The WebSocket upgrade was refused (bad or expired token, or the relay is down).
    case socketRefused
    /// The relay URL is not one a client can log in to (not http/https, no host).
    case invalidRelayURL(String)
    /// The relay's TLS key is not the one its URL pins (`#pin=`): not trusted.
    case pinMismatch(expected: String, presented: String)

    public var status: Int? {
        if case let .http(status, _, _, _) = self { return status }
        return nil
    }

    public var code: String? {
        if case let .http(_, code, _, _) = self { return code }
        return nil
    }

    /// Seconds to wait before retrying, from `Retry-After`.
    public var retryAfterSeconds: Int? {
        if case let .http(_, _, _, seconds) = self { return seconds }
        return nil
    }

    /// 401, a missing token or a refused socket: get a new token, then retry.
    public var needsReauthentication: Bool {
        switch self {
        case .notAuthenticated, .socketRefused: true
        case let .http(status, _, _, _): status == 401
        default: false
        }
    }

    /// Worth retrying later unchanged: 429, 5xx, transport failures.
    public var isRetryable: Bool {
        switch self {
        case .transport: true
        case let .http(status, _, _, _): status == 429 || status >= 500
        default: false
        }
    }

    public var description: String {
        switch self {
        case let .http(status, code, message, retry):
            "relay refused (\(status) \(code)): \(message)" + (retry.map { " [retry after \($0) s]" } ?? "")
        case let .transport(what): "cannot reach the relay: \(what)"
        case let .invalidResponse(what): "unexpected answer from the relay: \(what)"
        case .notAuthenticated: "not authenticated with the relay: call authenticate first"
        case .socketRefused: "the relay refused the WebSocket connection: authenticate again"
        case let .invalidRelayURL(what): "\(what): use http://HOST:PORT or https://HOST[:PORT][#pin=PIN]"
        case let .pinMismatch(expected, presented):
            "the relay's TLS key does not match the pin in its URL (pinned \(expected), presented \(presented)): it may not be your relay; nothing was sent. If its operator replaced the key, use the new pin they give you"
        }
    }
}
