import HushCrypto
import HushMessenger
import HushProtocol

/// An unlocked account with its store and relay: what a front end talks to
/// once `Account.open` returned. The operations live in extensions, one
/// family per file (conversations, contacts, sending, live session).
public struct MessagingClient: Sendable {
    public let home: AccountHome
    let identity: IdentityKeyPair
    let messenger: Messenger
    /// The relay this account uses, if it has one.
    public let relayURL: String?

    /// The address (hush1…) to give contacts: it contains the identity key.
    public var address: String { identity.address.description }
    /// The identity public key in hex.
    public var identityKey: String { Hex.encode(identity.publicKey.rawRepresentation) }
    /// The identity key in groups of four hex digits, for reading aloud.
    public var fingerprint: String { IdentityFingerprint.of(publicKey: identity.publicKey.rawRepresentation) }
}
