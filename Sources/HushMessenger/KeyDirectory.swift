import HushProtocol

/// The relay's directory of identities and their prekeys.
public protocol KeyDirectory: Sendable {
    /// Publishes the identity with its prekeys (proof of possession inside);
    /// returns the registration's timestamp (ms), which the relay keeps.
    func register(identity: IdentityKeyPair, signedPrekey: SignedPrekey, lastResortKEMPrekey: SignedPrekey,
                  oneTimePrekeys: [SignedPrekey]) async throws(DeliveryFailure) -> Int64
    /// Adds one-time prekeys; returns how many X25519 and KEM ones remain.
    func uploadPrekeys(_ prekeys: [SignedPrekey]) async throws(DeliveryFailure) -> (x25519: Int, kem: Int)
    /// How many one-time prekeys of each kind the relay still holds for us,
    /// and the registration it holds (nil from a relay that does not say:
    /// docs/RELAY-API.md).
    func prekeyCounts() async throws(DeliveryFailure) -> (x25519: Int, kem: Int, registration: HeldRegistration?)
    /// Fetches a bundle (consuming one-time prekeys at the relay).
    func fetchBundle(for identity: IdentityKey) async throws(DeliveryFailure) -> PrekeyBundle
}

/// The registration a relay holds for our key (`GET /v1/prekeys/count`): when
/// it was made, and its signed prekey. One this home did not make means
/// another home of the key registered since (`HomeRegistration`).
public struct HeldRegistration: Sendable, Equatable {
    public var registeredAt: Int64
    public var signedPrekey: SignedPrekey

    public init(registeredAt: Int64, signedPrekey: SignedPrekey) {
        self.registeredAt = registeredAt
        self.signedPrekey = signedPrekey
    }
}
