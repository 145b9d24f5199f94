import HushProtocol

/// `GET /v1/identities/{identity}/bundle`: a bundle for starting a session.
/// Fetching consumes the one-time prekeys it contains.
public struct PrekeyBundleDTO: Codable, Sendable, Hashable {
    public var identityKey: Base64Bytes
    public var signedPrekey: SignedPrekeyDTO
    /// A one-time KEM prekey when any was left, else the last-resort one.
    public var kemPrekey: SignedPrekeyDTO
    /// A one-time X25519 prekey, absent when none was left.
    public var oneTimePrekey: SignedPrekeyDTO?

    public init(_ bundle: PrekeyBundle) {
        self.identityKey = Base64Bytes(bundle.identityKey.rawRepresentation)
        self.signedPrekey = SignedPrekeyDTO(bundle.signedPrekey)
        self.kemPrekey = SignedPrekeyDTO(bundle.kemPrekey)
        self.oneTimePrekey = bundle.oneTimePrekey.map(SignedPrekeyDTO.init)
    }

    /// The protocol bundle. The caller must still `verify()` it: the relay is not trusted.
    public func bundle() throws(ProtocolError) -> PrekeyBundle {
        try PrekeyBundle(
            identityKey: IdentityKey(rawRepresentation: identityKey.bytes),
            signedPrekey: signedPrekey.prekey(),
            kemPrekey: kemPrekey.prekey(),
            oneTimePrekey: oneTimePrekey?.prekey()
        )
    }
}
