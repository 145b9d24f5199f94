import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/sender-key.json: one member's sender chain in a group
/// (docs/PROTOCOL.md §18). From the fixed chain key and signing seed, the
/// distribution and every message must come out byte for byte; each step's
/// chain and message keys are KDF_CK's (§7.1); a chain made from the
/// distribution must read the messages in the case's order; the forgery
/// (another key's signature) must be refused.
public struct SenderKeySuite: VectorSuite {
    public let name = "hush-sender-key"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let chain = try SenderKeyChain.own(groupID: try fields.hex("group_id"), epoch: try fields.uint32("epoch"),
                                           chainKey: SecureBytes(copying: try fields.hex("chain_key")),
                                           signingSeed: SecureBytes(copying: try fields.hex("signing_seed")))
        try expectHex(chain.signingKey.rawRepresentation, try fields.hex("signing_public"), "signing public key")
        try expectHex(try chain.distribution().encoded, try fields.hex("distribution"), "distribution")
        let steps = try fields.list("messages").map(CaseFields.init)
        var chainKey = try fields.hex("chain_key")
        for (index, step) in steps.enumerated() {
            try expectHex(chainKey, try step.hex("chain_key"), "chain key of message \(index)")
            try expectHex(HMACSHA256.authenticationCode(for: [RatchetConstants.messageKeyConstant], key: chainKey), try step.hex("message_key"),
                          "message key \(index)")
            chainKey = HMACSHA256.authenticationCode(for: [RatchetConstants.chainKeyConstant], key: chainKey)
            try expectHex(try chain.encrypt(try step.hex("content")), try step.hex("message"), "message \(index)")
        }
        try expectHex(try chain.distribution().chainKey.copyBytes(), try fields.hex("chain_key_after"), "chain key after the messages")

        let reader = SenderKeyChain(distribution: try SenderKeyDistribution.decode(try fields.hex("distribution")))
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
}
