import HushCrypto
@_spi(Vectors) @testable import HushProtocol
import HushTesting
import Testing

/// Large groups (PROTOCOL §18.4): chains derived from the state's secret
/// instead of distributed, signing keys bound by identity keys in every
/// message, states of up to 1 000 members.
@Suite struct LargeGroupTests {
    let random = DeterministicRandom(seed: "large groups")

    func state(members count: Int, epoch: UInt32 = 1) throws -> (LargeGroupState, [IdentityKeyPair]) {
        let identities = (0..<count).map { _ in IdentityKeyPair.generate(using: random) }
        let state = try LargeGroupState(groupID: random.bytes(16), epoch: epoch, secret: SecureBytes(randomCount: 32, using: random),
                                        name: "everyone", members: identities.enumerated().map {
                                            .init(identityKey: $0.element.publicKey, role: $0.offset == 0 ? .admin : .member)
                                        })
        return (state, identities)
    }

    @Test func aThousandMembersFitOneContentAndEveryMemberDerivesTheSameChains() throws {
        let (state, identities) = try state(members: 1_000)
        #expect(state.encoded.count <= 33_119)
        #expect(try LargeGroupState.decode(state.encoded) == state)
        // What one member sends, any other reads from the chain it derived, with nothing distributed.
        let sender = try LargeGroupChain(own: identities[500], in: state, signingSeed: SecureBytes(randomCount: 32, using: random))
        let message = try sender.encrypt(Array("hello, everyone".utf8))
        // (Each reader derives the same chain: three fresh ones read the same message.)
        for _ in 0..<3 {
            #expect(try LargeGroupChain(member: identities[500].publicKey, in: state).decrypt(message) == Array("hello, everyone".utf8))
        }
        // It fits a group envelope, which the state's key opens.
        let envelope = try GroupEnvelope.seal(message, key: state.envelopeKey(), using: random)
        #expect(try GroupEnvelope.open(envelope, key: try state.envelopeKey()) == message)
    }

    @Test func stateBoundsAreKept() throws {
        #expect(throws: ProtocolError.self) { try self.state(members: 1_001) }
        let (state, identities) = try state(members: 2)
        let twice = [LargeGroupState.Member(identityKey: identities[0].publicKey, role: .admin),
                     LargeGroupState.Member(identityKey: identities[0].publicKey, role: .member)]
        #expect(throws: ProtocolError.self) {
            try LargeGroupState(groupID: state.groupID, epoch: 1, secret: state.secret, name: "x", members: twice)
        }
        #expect(throws: ProtocolError.self) {
            try LargeGroupState(groupID: state.groupID, epoch: 1, secret: state.secret, name: "x",
                                members: [.init(identityKey: identities[0].publicKey, role: .member)])
        }
        #expect(throws: ProtocolError.self) { try LargeGroupState.decode(state.encoded + [0]) }
    }

    @Test func anotherEpochsOrGroupsChainsDifferAndOpenNothing() throws {
        let (state, identities) = try state(members: 3)
        let next = try LargeGroupState(groupID: state.groupID, epoch: 2, secret: state.secret, name: state.name, members: state.members)
        let sender = try LargeGroupChain(own: identities[1], in: state, signingSeed: SecureBytes(randomCount: 32, using: random))
        let message = try sender.encrypt([1, 2, 3])
        // The same secret in another epoch gives other chains (the epoch is in the derivation and the head).
        #expect(try MemberChains.initialChainKey(of: identities[1].publicKey, groupID: state.groupID, epoch: 2, secret: state.secret)
                != MemberChains.initialChainKey(of: identities[1].publicKey, groupID: state.groupID, epoch: 1, secret: state.secret))
        #expect(throws: ProtocolError.senderMismatch) { try LargeGroupChain(member: identities[1].publicKey, in: next).decrypt(message) }
        // One's own chain only encrypts; a non-member has no chain.
        #expect(throws: ProtocolError.self) { try sender.decrypt(message) }
        #expect(throws: ProtocolError.self) { try LargeGroupChain(member: IdentityKeyPair.generate(using: random).publicKey, in: state) }
    }

    @Test func aForgedBindingLeavesTheChainUnbound() throws {
        let (state, identities) = try state(members: 3)
        let sender = try LargeGroupChain(own: identities[1], in: state, signingSeed: SecureBytes(randomCount: 32, using: random))
        var forged = try sender.encrypt([7])
        forged.replaceSubrange(SenderKeyWire.headLength + 32 ..< LargeGroupMessageHead.length,
                               with: MemberKeyBinding.sign(by: identities[2], groupID: state.groupID, epoch: 1, signingKey: sender.signingKey!))
        let reader = try LargeGroupChain(member: identities[1].publicKey, in: state)
        #expect(throws: ProtocolError.self) { try reader.decrypt(forged) }
        #expect(reader.signingKey == nil, "nothing kept from a refused message")
        // Another member can derive the sender's chain and sign with a key of its own; only the
        // sender's identity key can bind one, so the impersonation is refused for its binding.
        let seed = SecureBytes(randomCount: 32, using: random)
        let ownKey = try Ed25519.PrivateKey(seed: seed).publicKey
        let impersonation = try LargeGroupChain(impersonating: identities[1].publicKey, in: state, signingSeed: seed,
                                                binding: MemberKeyBinding.sign(by: identities[2], groupID: state.groupID, epoch: 1,
                                                                               signingKey: ownKey)).encrypt([8])
        #expect(throws: ProtocolError.invalidSignature(what: "large group message (binding)")) { try reader.decrypt(impersonation) }
        #expect(try reader.decrypt(try sender.encrypt([9])) == [9])
    }
}
