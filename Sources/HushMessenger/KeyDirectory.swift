import HushProtocol

/// The relay's directory of identities and their prekeys.
public protocol KeyDirectory: Sendable {
    /// Publishes the identity with its prekeys (proof of possession inside).
    func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                  oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure)
    /// Adds one-time prekeys; returns how many X25519 and KEM ones remain.
    func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int)
    /// How many one-time prekeys of each kind the relay still holds for us.
    func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int)
    /// Fetches a bundle (consuming one-time prekeys at the relay).
    func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle
}
