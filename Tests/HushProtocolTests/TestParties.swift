import HushCrypto
import HushTesting
@_spi(Vectors) @testable import HushProtocol

/// Two parties with prekeys, built from fixed seeds.
struct Party {
    let identity: IdentityKeyPair
    let signedPrekey: PrivatePrekey
    let oneTimePrekey: PrivatePrekey
    let kemPrekey: PrivatePrekey
    let random: DeterministicRandom

    init(_ name: String) throws {
        random = DeterministicRandom(seed: "party " + name)
        identity = IdentityKeyPair.generate(using: random, storage: .wiped)
        signedPrekey = try PrivatePrekey.generate(kind: .signedX25519, id: 1, identity: identity, using: random)
        oneTimePrekey = try PrivatePrekey.generate(kind: .oneTimeX25519, id: 100, identity: identity, using: random)
        kemPrekey = try PrivatePrekey.generate(kind: .lastResortKEM, id: 7, identity: identity, using: random)
    }

    func bundle(withOneTime: Bool = true) throws -> PrekeyBundle {
        try PrekeyBundle(identityKey: identity.publicKey, signedPrekey: signedPrekey.signed, kemPrekey: kemPrekey.signed,
                         oneTimePrekey: withOneTime ? oneTimePrekey.signed : nil)
    }
}

/// Alice initiates to Bob; Bob accepts from Alice's first envelope.
struct Conversation {
    let alice: Party
    let bob: Party
    let aliceSession: Session
    var bobSession: Session!
    let aliceStore = InMemorySkippedMessageKeyStore()
    let bobStore = InMemorySkippedMessageKeyStore()

    init(oneTime: Bool = true) throws {
        alice = try Party("alice")
        bob = try Party("bob")
        aliceSession = try Session.initiate(identity: alice.identity, to: bob.identity.address,
                                            bundle: bob.bundle(withOneTime: oneTime), using: alice.random)
    }

    /// Alice seals `text`; Bob accepts the session on first contact.
    mutating func bobReceives(_ envelope: [UInt8]) throws -> [UInt8] {
        let opened = try SealedSender.open(envelope, recipient: bob.identity)
        if bobSession == nil {
            bobSession = try Session.accept(identity: bob.identity, opened: opened, signedPrekey: bob.signedPrekey,
                                            oneTimePrekey: opened.handshake?.oneTimePrekeyID == nil ? nil : bob.oneTimePrekey,
                                            kemPrekey: bob.kemPrekey)
        }
        return try bobSession.open(opened, skippedKeys: bobStore, using: bob.random)
    }

    func aliceReceives(_ envelope: [UInt8]) throws -> [UInt8] {
        let opened = try SealedSender.open(envelope, recipient: alice.identity)
        return try aliceSession.open(opened, skippedKeys: aliceStore, using: alice.random)
    }

    func aliceSends(_ text: String) throws -> [UInt8] {
        try aliceSession.seal(Array(text.utf8), using: alice.random)
    }

    func bobSends(_ text: String) throws -> [UInt8] {
        try bobSession.seal(Array(text.utf8), using: bob.random)
    }
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
