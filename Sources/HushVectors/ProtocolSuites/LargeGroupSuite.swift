import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/large-group.json (docs/PROTOCOL.md §18.4), one case per `kind`:
/// - `state`: the large state's encoding from its fields (and back), its
///   digest, envelope key and every member's first chain key;
/// - `messages`: the sender's own chain (its derived key, the signing seed)
///   writes `messages` byte for byte with its binding, and another member's
///   chain for the sender reads them, in order, to `contents`;
/// - `content`: content `0x15` carrying `state` and a rekey request `0x16`
///   for its group and epoch, decoded and encoded again byte for byte;
/// - `refused`: another member's chain for `member` (after reading
///   `read_first`, when given) refuses `message` with `error`.
public struct LargeGroupSuite: VectorSuite {
    public let name = "hush-large-group"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        switch try fields.string("kind") {
        case "state": try state(fields)
        case "messages": try messages(fields)
        case "refused": try refused(fields)
        case "content": try content(fields)
        case let other: throw VectorFailure("unknown kind '\(other)'")
        }
    }

    private func state(_ fields: CaseFields) throws {
        let members = try (fields.values["members"] as? [[String: Any]] ?? []).map { member in
            let item = CaseFields(member)
            guard let role = GroupState.Role(rawValue: UInt8(try item.int("role"))) else { throw VectorFailure("a role outside 0…1") }
            return LargeGroupState.Member(identityKey: try IdentityKey(rawRepresentation: try item.hex("identity_key")), role: role)
        }
        let state = try LargeGroupState(groupID: try fields.hex("group_id"), epoch: UInt32(try fields.int("epoch")),
                                        secret: SecureBytes(copying: try fields.hex("secret")), name: try fields.string("name"), members: members)
        try expectHex(state.encoded, try fields.hex("encoded"), "encoding")
        try expectHex(try LargeGroupState.decode(try fields.hex("encoded")).encoded, state.encoded, "decoded and encoded again")
        try expectHex(state.digest, try fields.hex("digest"), "digest")
        try expectHex(try state.envelopeKey().copyBytes(), try fields.hex("envelope_key"), "envelope key")
        let expected = fields.values["chain_keys"] as? [[String: Any]] ?? []
        let derived = try state.initialChainKeys()
        try expectEqual(derived.count, expected.count, "chain keys")
        for (ours, theirs) in zip(derived, expected.map(CaseFields.init)) {
            try expectHex(ours.member.rawRepresentation, try theirs.hex("identity_key"), "chain key's member")
            try expectHex(ours.chainKey.copyBytes(), try theirs.hex("chain_key"), "first chain key")
        }
    }

    private func content(_ fields: CaseFields) throws {
        let state = try LargeGroupState.decode(try fields.hex("state"))
        let id = try MessageID(bytes: try fields.hex("message_id"))
        let sentAt = UInt64(try fields.int("sent_at"))
        let update = try Content(decoding: try fields.hex("update_content"))
        guard update.body == .largeGroupUpdate(state), update.id == id, update.sentAt == sentAt else {
            throw VectorFailure("content 0x15 does not carry the state")
        }
        try expectHex(try Content(id: id, sentAt: sentAt, body: .largeGroupUpdate(state)).encoded(), try fields.hex("update_content"), "content 0x15")
        let rekey = try Content(decoding: try fields.hex("rekey_content"))
        guard rekey.body == .largeGroupRekey(groupID: state.groupID, epoch: state.epoch) else {
            throw VectorFailure("content 0x16 does not name the state's group and epoch")
        }
        try expectHex(try Content(id: id, sentAt: sentAt, body: .largeGroupRekey(groupID: state.groupID, epoch: state.epoch)).encoded(),
                      try fields.hex("rekey_content"), "content 0x16")
    }

    private func messages(_ fields: CaseFields) throws {
        let state = try LargeGroupState.decode(try fields.hex("state"))
        let sender = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("sender_identity_seed")))
        let own = try LargeGroupChain(own: sender, in: state, signingSeed: SecureBytes(copying: try fields.hex("signing_seed")))
        try expectHex(own.signingKey?.rawRepresentation ?? [], try fields.hex("signing_key"), "signing key")
        try expectHex(MemberKeyBinding.sign(by: sender, groupID: state.groupID, epoch: state.epoch, signingKey: own.signingKey!),
                      try fields.hex("binding"), "binding")
        let contents = try (fields.values["contents"] as? [String] ?? []).map { try Hex.decode($0) }
        let expected = try (fields.values["messages"] as? [String] ?? []).map { try Hex.decode($0) }
        try expectEqual(contents.count, expected.count, "messages")
        let reader = try LargeGroupChain(member: sender.publicKey, in: state)
        for (content, message) in zip(contents, expected) {
            try expectHex(try own.encrypt(content), message, "message")
            try expectHex(try reader.decrypt(message), content, "opened by another member")
        }
    }

    private func refused(_ fields: CaseFields) throws {
        let expected = try fields.string("error")
        let reader = try LargeGroupChain(member: try IdentityKey(rawRepresentation: try fields.hex("member")),
                                         in: try LargeGroupState.decode(try fields.hex("state")))
        let first = try fields.hex("read_first")
        if !first.isEmpty { _ = try reader.decrypt(first) }
        do {
            _ = try reader.decrypt(try fields.hex("message"))
            throw VectorFailure("the message was read; it must be refused as \(expected)")
        } catch let error as ProtocolError {
            let name: String
            switch error {
            case .invalidSignature: name = "invalidSignature"
            case .senderMismatch: name = "senderMismatch"
            case .decryptionFailed: name = "decryptionFailed"
            default: name = "\(error)"
            }
            try expectEqual(name, expected, "refusal")
        }
    }
}
