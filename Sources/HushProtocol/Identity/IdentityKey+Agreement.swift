import HushCrypto

extension IdentityKey {
    /// The X25519 identity agreement key, derived from the Ed25519 identity
    /// key by the birational map (docs/PROTOCOL.md, "Identity"). Used for DH1
    /// and DH2 of the handshake and for the sealed-sender layer. Derived once
    /// per identity and then taken from `AgreementKeyCache`.
    public func agreementKey() throws(ProtocolError) -> X25519.PublicKey {
        do { return try AgreementKeyCache.agreementKey(for: signingKey) } catch { throw .crypto(error) }
    }

    /// Constant-time equality, for places where a key is compared against one
    /// an attacker chose (sealed-sender checks, key-change detection).
    public func constantTimeEquals(_ other: IdentityKey) -> Bool {
        ConstantTime.equals(rawRepresentation, other.rawRepresentation)
    }
}
