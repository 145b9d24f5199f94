import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/sender-key.json: one member's sender chain in a group
/// (docs/PROTOCOL.md §18). From the fixed chain key and signing seed, the
/// distribution and every message must come out byte for byte; each step's
/// chain and message keys are KDF_CK's (§7.1); a chain made from the
/// distribution must read the messages in the case's order; the forgery
/// (another key's signature) must be refused. The distribution is signed
/// for the member's identity key, over exactly `distribution_transcript`;
/// every one of `refused_distributions` must be refused, from the identity
/// key it names, as a bad signature or as the unsigned version 0x01.
public struct SenderKeySuite: VectorSuite {
    public let name = "hush-sender-key"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let chain = try SenderKeyChain.own(groupID: try fields.hex("group_id"), epoch: try fields.uint32("epoch"),
                                           chainKey: SecureBytes(copying: try fields.hex("chain_key")),
                                           signingSeed: SecureBytes(copying: try fields.hex("signing_seed")))
        try expectHex(chain.signingKey.rawRepresentation, try fields.hex("signing_public"), "signing public key")
        let member = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("member_identity_seed"))).publicKey
        try expectHex(member.rawRepresentation, try fields.hex("member_identity_key"), "member identity key")
        let signed = try chain.distribution(from: member)
        try expectHex(signed.transcript(member: member), try fields.hex("distribution_transcript"), "distribution transcript")
        try expectHex(signed.encoded, try fields.hex("distribution"), "distribution")
        let steps = try fields.list("messages").map(CaseFields.init)
        var chainKey = try fields.hex("chain_key")
        for (index, step) in steps.enumerated() {
            try expectHex(chainKey, try step.hex("chain_key"), "chain key of message \(index)")
            try expectHex(HMACSHA256.authenticationCode(for: [RatchetConstants.messageKeyConstant], key: chainKey), try step.hex("message_key"),
                          "message key \(index)")
            chainKey = HMACSHA256.authenticationCode(for: [RatchetConstants.chainKeyConstant], key: chainKey)
            try expectHex(try chain.encrypt(try step.hex("content")), try step.hex("message"), "message \(index)")
        }
        try expectHex(try chain.distribution(from: member).chainKey.copyBytes(), try fields.hex("chain_key_after"), "chain key after the messages")

        try checkRefusals(try fields.list("refused_distributions").map(CaseFields.init))
        let reader = try SenderKeyChain(distribution: try SenderKeyDistribution.decode(try fields.hex("distribution")), from: member)
        let forged = try fields.hex("forged_message")
        do {
            _ = try reader.decrypt(forged)
            throw VectorFailure("the forged message (another key's signature) was accepted")
        } catch ProtocolError.invalidSignature {}
        guard let order = fields.values["receive_order"] as? [Int], order.sorted() == Array(steps.indices) else {
            throw VectorFailure("receive_order must list every message once")
        }
        for index in order {
            try expectHex(try reader.decrypt(try steps[index].hex("message")), try steps[index].hex("content"), "message \(index) read")
        }
    }

    /// Each refused distribution: `reason` "signature" must decode and fail
    /// verification for `from_identity_key`; "version" must not decode.
    private func checkRefusals(_ refusals: [CaseFields]) throws {
        guard !refusals.isEmpty else { throw VectorFailure("refused_distributions must not be empty") }
        for (index, refusal) in refusals.enumerated() {
            let bytes = try refusal.hex("distribution")
            let sender = try IdentityKey(rawRepresentation: try refusal.hex("from_identity_key"))
            switch try refusal.string("reason") {
            case "signature":
                do {
                    _ = try SenderKeyChain(distribution: try SenderKeyDistribution.decode(bytes), from: sender)
                    throw VectorFailure("refused distribution \(index) was accepted")
                } catch ProtocolError.invalidSignature {}
            case "version":
                do {
                    _ = try SenderKeyDistribution.decode(bytes)
                    throw VectorFailure("refused distribution \(index) (unsigned version) was decoded")
                } catch is ProtocolError {}
            case let other:
                throw VectorFailure("refused distribution \(index): unknown reason '\(other)'")
            }
        }
    }
}
