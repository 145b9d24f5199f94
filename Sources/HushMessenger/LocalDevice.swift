import HushCrypto
import HushProtocol

/// This home as a device of its account (docs/PROTOCOL.md §20.8, §20.10):
/// the device's own key pair, which the relay knows in place of the
/// account key (registration, prekeys, mailbox, login), and the account's
/// certificate of it, sent with every session the device starts until the
/// peer answers, so the peer files what it sends under the account.
///
/// A messenger without one is the account's only device (or its first,
/// made before lists): the account key is its key at the relay.
public struct LocalDevice: Sendable {
    public let keyPair: IdentityKeyPair
    public let certificate: DeviceCertificate

    /// The device whose seed is `seed`, certified by `account`.
    public init(seed: SecureBytes, account: IdentityKeyPair) throws {
        keyPair = try IdentityKeyPair(seed: seed)
        certificate = DeviceCertificate(account: account, device: keyPair.publicKey.signingKey)
    }
}
