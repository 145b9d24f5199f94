/// What an initiator fetches from the relay to start a session with someone
/// who may be offline: the identity key, the signed X25519 prekey, the ML-KEM
/// prekey (a one-time one when any is left, else the last-resort one), and
/// a one-time X25519 prekey when any is left.
public struct PrekeyBundle: Sendable, Hashable {
    public let identityKey: IdentityKey
    public let signedPrekey: SignedPrekey
    public let kemPrekey: SignedPrekey
    public let oneTimePrekey: SignedPrekey?

    /// Checks that each key has the right kind; `verify()` checks signatures.
    public init(identityKey: IdentityKey, signedPrekey: SignedPrekey, kemPrekey: SignedPrekey, oneTimePrekey: SignedPrekey?) throws(ProtocolError) {
        guard signedPrekey.kind == .signedX25519 else { throw .malformed(what: "bundle: signed prekey has kind \(signedPrekey.kind)") }
        guard kemPrekey.kind == .lastResortKEM || kemPrekey.kind == .oneTimeKEM else {
            throw .malformed(what: "bundle: KEM prekey has kind \(kemPrekey.kind)")
        }
        if let oneTimePrekey, oneTimePrekey.kind != .oneTimeX25519 {
            throw .malformed(what: "bundle: one-time prekey has kind \(oneTimePrekey.kind)")
        }
        self.identityKey = identityKey
        self.signedPrekey = signedPrekey
        self.kemPrekey = kemPrekey
        self.oneTimePrekey = oneTimePrekey
    }

    /// Verifies every prekey signature against the identity key. A bundle that
    /// fails must be refused: it was altered, or the relay substituted keys.
    public func verify() throws(ProtocolError) {
        try signedPrekey.verify(by: identityKey)
        try kemPrekey.verify(by: identityKey)
        try oneTimePrekey?.verify(by: identityKey)
    }
}
