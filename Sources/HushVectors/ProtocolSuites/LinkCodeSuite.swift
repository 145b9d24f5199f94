import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/link-code.json (docs/PROTOCOL.md §20.5, §20.6), one case per `kind`:
/// - `code`: from `secret` and `relay`, the code's `bytes` and `text`; each
///   of `typed` must read to the same bytes; the link id, auth key, link
///   mailbox seed, identity key and credential, the hello's link envelope; with
///   both ephemeral private keys, the hello, the welcome, the agreement, the
///   channel keys, the archive key, the confirmation digits and one sealed
///   channel message, byte for byte;
/// - `refused`: `text` must be refused with `error`, the name of §20.5's step.
public struct LinkCodeSuite: VectorSuite {
    public let name = "hush-link-code"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        switch try fields.string("kind") {
        case "code": try code(fields)
        case "refused": try refused(fields)
        case let other: throw VectorFailure("unknown kind '\(other)'")
        }
    }

    private func code(_ fields: CaseFields) throws {
        let code = try LinkCode(secret: SecureBytes(copying: try fields.hex("secret")), relay: try fields.string("relay"))
        try expectHex(code.bytes, try fields.hex("bytes"), "code bytes")
        try expectEqual(code.displayText, try fields.string("text"), "code text")
        for typed in (fields.values["typed"] as? [String]) ?? [] {
            try expectHex(try LinkCode(parsing: typed).bytes, code.bytes, "'\(typed)' read")
        }
        let keys = try code.keys()
        try expectHex(keys.linkID, try fields.hex("link_id"), "link id")
        try expectHex(keys.authenticationKey.copyBytes(), try fields.hex("auth_key"), "auth key")
        try expectHex(keys.mailboxSeed.copyBytes(), try fields.hex("mailbox_seed"), "link mailbox seed")
        try expectHex(try keys.mailboxIdentity().publicKey.rawRepresentation, try fields.hex("mailbox_identity_key"), "link mailbox identity key")
        try expectHex(keys.mailboxCredential.copyBytes(), try fields.hex("mailbox_credential"), "link mailbox credential")

        let new = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try fields.hex("new_ephemeral_private")))
        let existing = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try fields.hex("existing_ephemeral_private")))
        try expectHex(new.publicKey.rawRepresentation, try fields.hex("new_ephemeral_public"), "E_n")
        try expectHex(existing.publicKey.rawRepresentation, try fields.hex("existing_ephemeral_public"), "E_e")
        let hello = keys.hello(new.publicKey)
        try expectHex(hello, try fields.hex("hello"), "hello")
        let envelope = try fields.hex("hello_envelope")
        try expectHex(try LinkEnvelope.wrap(hello, from: .newDevice), envelope, "hello in its link envelope")
        guard let unwrapped = LinkEnvelope.unwrap(envelope), unwrapped.sender == .newDevice, unwrapped.message == hello else {
            throw VectorFailure("the hello's link envelope does not read back")
        }
        let welcome = keys.welcome(existing.publicKey, answering: hello)
        try expectHex(welcome, try fields.hex("welcome"), "welcome")
        try expectHex(try new.sharedSecret(with: existing.publicKey).copyBytes(), try fields.hex("shared_secret"), "X25519(e_n, E_e)")
        let onNew = try keys.channel(own: new, peer: try keys.openWelcome(welcome, answering: hello), newDevice: new.publicKey,
                                     existingDevice: existing.publicKey)
        let onExisting = try keys.channel(own: existing, peer: try keys.openHello(hello), newDevice: new.publicKey,
                                          existingDevice: existing.publicKey)
        for (side, channel) in [("new device", onNew), ("existing device", onExisting)] {
            try expectHex(channel.newToExisting.copyBytes(), try fields.hex("new_to_existing_key"), "\(side): new → existing key")
            try expectHex(channel.existingToNew.copyBytes(), try fields.hex("existing_to_new_key"), "\(side): existing → new key")
            try expectHex(channel.archiveKey.copyBytes(), try fields.hex("archive_key"), "\(side): archive key")
            try expectEqual(channel.confirmation, try fields.string("confirmation"), "\(side): confirmation")
        }
        let message = CaseFields(fields.values["channel_message"] as? [String: Any] ?? [:])
        let plaintext = try message.hex("plaintext")
        let number = UInt8(try message.int("number"))
        let direction: LinkChannelKeys.Direction = try message.string("direction") == "new_to_existing" ? .newToExisting : .existingToNew
        let sealed = try onExisting.seal(plaintext, from: direction, number: number)
        try expectHex(sealed, try message.hex("sealed"), "sealed channel message")
        try expectHex(try onNew.open(sealed, from: direction, number: number), plaintext, "opened channel message")
    }

    private func refused(_ fields: CaseFields) throws {
        let expected = try fields.string("error")
        do {
            _ = try LinkCode(parsing: try fields.string("text"))
            throw VectorFailure("the code was read; it must be refused as \(expected)")
        } catch let ProtocolError.invalidLinkCode(problem) {
            try expectEqual(problem.rawValue, expected, "refusal")
        }
    }
}
