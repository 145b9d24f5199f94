import HushProtocol

/// Logging in at the relay: the session every other port's calls carry.
public protocol RelayAuthentication: Sendable {
    /// Obtains a fresh session token (challenge signed by the identity key).
    func authenticate(identity: IdentityKeyPair) async throws(DeliveryFailure)
    /// The session token in use, so a later run can resume it instead of
    /// logging in again (nil when there is none, or the transport keeps none).
    var sessionToken: SessionToken? { get }
    /// Uses a token `identity` obtained in an earlier run.
    func resume(_ token: SessionToken, identity: IdentityKeyPair)
}

extension RelayAuthentication {
    /// A transport that keeps no token (a test double) logs in each run.
    public var sessionToken: SessionToken? { nil }
    public func resume(_ token: SessionToken, identity: IdentityKeyPair) {}
}

/// A relay session token and when the relay said it expires (its clock, ms).
public struct SessionToken: Sendable, Equatable {
    public let token: String
    public let expiresAt: Int64

    public init(token: String, expiresAt: Int64) {
        self.token = token
        self.expiresAt = expiresAt
    }
}
