import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/group.json (docs/PROTOCOL.md §18.2, §18.3): a state's
/// encoding, digest and envelope key, built from its fields; which of two
/// states of one epoch supersedes; a group envelope sealed with a fixed
/// nonce, opened with its key and refused by another; the group content types.
public struct GroupSuite: VectorSuite {
    public let name = "hush-group"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        switch try fields.string("kind") {
        case "state":
            let state = try checkState(fields)
            let content = try Content(decoding: try fields.hex("content"))
            try expectEqual(content.id.bytes, try fields.hex("message_id"), "content message id")
            guard content.body == .groupUpdate(state) else { throw VectorFailure("content 0x0A does not carry the state") }
            try expectHex(try Content(id: content.id, sentAt: content.sentAt, body: .groupUpdate(state)).encoded(), try fields.hex("content"),
                          "content 0x0A")
        case "order":
            let first = try checkState(CaseFields(fields.values["first"] as? [String: Any] ?? [:]))
            let second = try checkState(CaseFields(fields.values["second"] as? [String: Any] ?? [:]))
            let expected = try fields.string("superseding")
            try expectEqual(first.supersedes(second) ? "first" : "second", expected, "the superseding state")
            try expectEqual(second.supersedes(first) ? "second" : "first", expected, "the superseding state, asked the other way")
        case "envelope":
            let key = SecureBytes(copying: try fields.hex("envelope_key"))
            let envelope = try GroupEnvelope.seal(try fields.hex("group_message"), key: key, nonce: try fields.hex("nonce"))
            try expectHex(envelope, try fields.hex("envelope"), "group envelope")
            guard let message = try GroupEnvelope.open(try fields.hex("envelope"), key: key) else {
                throw VectorFailure("the group envelope did not open with its key")
            }
            try expectHex(message, try fields.hex("group_message"), "group message inside")
            if try GroupEnvelope.open(envelope, key: SecureBytes(copying: try fields.hex("other_envelope_key"))) != nil {
                throw VectorFailure("another state's key opened the group envelope")
            }
            let member = try IdentityKey(rawRepresentation: try fields.hex("member_identity_key"))
            let reader = try SenderKeyChain(distribution: try SenderKeyDistribution.decode(try fields.hex("distribution")), from: member)
            try expectHex(try reader.decrypt(message), try fields.hex("content"), "content of the group message")
        case "content":
            let id = try MessageID(bytes: try fields.hex("message_id"))
            let sentAt = UInt64(try fields.int("sent_at"))
            let distribution = try SenderKeyDistribution.decode(try fields.hex("distribution"))
            try distribution.verify(from: try IdentityKey(rawRepresentation: try fields.hex("member_identity_key")))
            try expectHex(try Content(id: id, sentAt: sentAt, body: .senderKeyDistribution(distribution)).encoded(),
                          try fields.hex("distribution_content"), "distribution content 0x0B")
            try expectHex(try Content(id: id, sentAt: sentAt, body: .groupLeave(groupID: try fields.hex("group_id"),
                                                                               epoch: try fields.uint32("epoch"))).encoded(),
                          try fields.hex("leave_content"), "leave content 0x0C")
            guard try Content(decoding: try fields.hex("distribution_content")).body == .senderKeyDistribution(distribution) else {
                throw VectorFailure("content 0x0B does not decode to the distribution")
            }
        case let other:
            throw VectorFailure("unknown kind '\(other)'")
        }
    }

    private func checkState(_ fields: CaseFields) throws -> GroupState {
        var members: [GroupState.Member] = []
        for member in try fields.list("members").map(CaseFields.init) {
            guard let role = GroupState.Role(rawValue: UInt8(clamping: try member.int("role"))) else { throw VectorFailure("member role") }
            members.append(.init(identityKey: try IdentityKey(rawRepresentation: try member.hex("identity_key")), role: role,
                                 label: try member.string("label")))
        }
        let state = try GroupState(groupID: try fields.hex("group_id"), epoch: try fields.uint32("epoch"),
                                   secret: SecureBytes(copying: try fields.hex("secret")), name: try fields.string("name"), members: members)
        try expectHex(state.encoded, try fields.hex("encoded"), "state encoding")
        try expectHex(state.digest, try fields.hex("digest"), "state digest")
        try expectHex(try state.envelopeKey().copyBytes(), try fields.hex("envelope_key"), "envelope key")
        try expectEqual(try GroupState.decode(try fields.hex("encoded")), state, "decoded state")
        return state
    }
}
