import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/ratchet.json: a scripted conversation at the Double
/// Ratchet layer (after the handshake of the same case), with out-of-order
/// delivery and DH ratchet steps. Events run in order:
///
/// - `{"op": "send", "from": "alice"|"bob", "label", "content", "message"}`:
///   encrypting `content` must give exactly `message`.
/// - `{"op": "receive", "to", "label", "random"?, "skipped_after"}`: decrypting
///   the message `label` must give its content; `random` is the 32-byte
///   ratchet private key drawn when the message starts a new chain;
///   `skipped_after` is the receiver's stored skipped-key count afterwards.
/// - `{"op": "reject", "to", "label"}`: decrypting `label` again must fail (replay).
public struct RatchetSuite: VectorSuite {
    public let name = "hush-ratchet"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let s = try ProtocolScenario(fields)
        let aliceRatchet = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try fields.hex("alice_ratchet_private")))
        let (_, secrets) = try Handshake.initiate(identity: s.alice, bundle: try s.bundle, ephemeral: s.ephemeral, encapsulation: try s.encapsulation)
        let alice = try DoubleRatchet(initiator: secrets, responderRatchetKey: s.signedPrekey.signed.publicKeyX25519(), ratchetKey: aliceRatchet)
        let bob = DoubleRatchet(responder: secrets, ratchetKey: try X25519.PrivateKey(rawRepresentation: s.signedPrekey.secret))
        let stores = ["alice": InMemorySkippedMessageKeyStore(), "bob": InMemorySkippedMessageKeyStore()]
        let ratchets = ["alice": alice, "bob": bob]
        var sent: [String: (content: [UInt8], message: [UInt8])] = [:]

        for (index, raw) in try fields.list("events").enumerated() {
            let event = CaseFields(raw)
            let label = try event.string("label")
            switch try event.string("op") {
            case "send":
                guard let ratchet = ratchets[try event.string("from")] else { throw VectorFailure("event \(index): unknown sender") }
                let content = try event.hex("content")
                let message = try ratchet.encrypt(content)
                try expectHex(message, try event.hex("message"), "event \(index) (\(label)) message")
                sent[label] = (content, message)
            case "receive", "reject":
                let to = try event.string("to")
                guard let ratchet = ratchets[to], let store = stores[to], let message = sent[label] else {
                    throw VectorFailure("event \(index): unknown receiver or label")
                }
                let random = ScriptedRandom((try event.optionalHex("random")).map { [$0] } ?? [])
                if try event.string("op") == "reject" {
                    do {
                        _ = try ratchet.decrypt(message.message, skippedKeys: store, using: random)
                        throw VectorFailure("event \(index): replayed \(label) decrypted")
                    } catch is ProtocolError {}
                    try random.checkUsedAsRecorded()
                } else {
                    let plaintext = try ratchet.decrypt(message.message, skippedKeys: store, using: random)
                    try random.checkUsedAsRecorded()
                    try expectHex(plaintext, message.content, "event \(index) (\(label)) plaintext")
                    try expectEqual(store.count(), try event.int("skipped_after"), "event \(index) skipped keys stored")
                }
            default:
                throw VectorFailure("event \(index): unknown op")
            }
        }
    }
}

extension SignedPrekey {
    func publicKeyX25519() throws -> X25519.PublicKey { try X25519.PublicKey(rawRepresentation: publicKey) }
}
