import HushCrypto
@_spi(Vectors) import HushProtocol
import HushTesting
import Testing

/// Sender keys (PROTOCOL §18): one member's chain, read by the others from
/// its distribution, in any order within the bounds, never before the
/// distribution's iteration, and never under a forged signature; and a
/// distribution taken only from the member that holds its signing key.
@Suite struct SenderKeyTests {
    let random = DeterministicRandom(seed: "sender-keys")
    var group: [UInt8] { [UInt8](repeating: 0x47, count: 16) }
    /// The identity keys of Alice, whose chains these are, and of Mallory, another member.
    let aliceIdentity = IdentityKeyPair.generate(using: DeterministicRandom(seed: "sender-keys-alice")).publicKey
    let malloryIdentity = IdentityKeyPair.generate(using: DeterministicRandom(seed: "sender-keys-mallory")).publicKey

    func pair(epoch: UInt32 = 1) throws -> (alice: SenderKeyChain, bob: SenderKeyChain) {
        let alice = try SenderKeyChain.create(groupID: group, epoch: epoch, using: random)
        return (alice, try reader(of: alice))
    }

    /// Another member's copy of Alice's chain, from her distribution.
    func reader(of alice: SenderKeyChain) throws -> SenderKeyChain {
        try SenderKeyChain(distribution: try alice.distribution(from: aliceIdentity), from: aliceIdentity)
    }

    func content(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func messagesDecryptInAnyOrderAndOnlyOnce() throws {
        let (alice, bob) = try pair()
        let sent = try (0..<4).map { try alice.encrypt(content("message \($0)")) }
        #expect(try bob.decrypt(sent[2]) == content("message 2"))
        #expect(bob.skippedKeyCount == 2)
        #expect(try bob.decrypt(sent[0]) == content("message 0"))
        #expect(try bob.decrypt(sent[3]) == content("message 3"))
        #expect(try bob.decrypt(sent[1]) == content("message 1"))
        #expect(bob.skippedKeyCount == 0)
        for message in sent {
            #expect(throws: ProtocolError.decryptionFailed) { _ = try bob.decrypt(message) }
        }
        #expect(bob.iteration == 4 && alice.iteration == 4)
    }

    /// What a distribution at iteration n gives: messages n and later, none
    /// before (a member added late, or a chain key that leaked).
    @Test func aDistributionOpensNothingSentBeforeIt() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 1, using: random)
        let early = try alice.encrypt(content("before you joined"))
        let late = try reader(of: alice)
        let after = try alice.encrypt(content("after"))
        #expect(throws: ProtocolError.decryptionFailed) { _ = try late.decrypt(early) }
        #expect(try late.decrypt(after) == content("after"))
    }

    /// Every member holds Alice's chain key, so the signature is what keeps
    /// Bob from writing as Alice: a message he encrypts with her chain and
    /// signs with his own key is refused, and the chain is unchanged.
    @Test func aMemberCannotWriteAsAnother() throws {
        let (alice, bob) = try pair()
        let carol = try reader(of: alice)
        // Bob's forgery: Alice's chain key and her signing key in the head, his signature.
        let forger = try SenderKeyChain.own(groupID: group, epoch: 1, chainKey: try alice.distribution(from: aliceIdentity).chainKey,
                                            signingSeed: SecureBytes(randomCount: 32, using: random))
        var forged = try forger.encrypt(content("pay Bob"))
        let keyRange = (1 + 16 + 4)..<(1 + 16 + 4 + 32)
        forged.replaceSubrange(keyRange, with: alice.signingKey.rawRepresentation)
        let bobKey = try Ed25519.PrivateKey(seed: SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "bob-signing")))
        forged.replaceSubrange((forged.count - 64)..., with: bobKey.signature(for: forged[..<(forged.count - 64)]))
        #expect(throws: ProtocolError.invalidSignature(what: "group message")) { _ = try carol.decrypt(forged) }
        // Unchanged: Alice's real first message still opens.
        let real = try alice.encrypt(content("hello"))
        #expect(try carol.decrypt(real) == content("hello"))
        #expect(try bob.decrypt(real) == content("hello"))
    }

    @Test func anyAlteredByteIsRefusedAndLeavesTheChainAsItWas() throws {
        let (alice, bob) = try pair()
        let message = try alice.encrypt(content("intact"))
        for index in stride(from: 0, to: message.count, by: 37) {
            var altered = message
            altered[index] ^= 0x01
            #expect(throws: ProtocolError.self) { _ = try bob.decrypt(altered) }
        }
        #expect(bob.iteration == 0 && bob.skippedKeyCount == 0)
        #expect(try bob.decrypt(message) == content("intact"))
    }

    @Test func anotherGroupEpochOrSenderIsNotThisChain() throws {
        let (alice, bob) = try pair(epoch: 1)
        let nextEpoch = try SenderKeyChain.create(groupID: group, epoch: 2, using: random)
        #expect(throws: ProtocolError.senderMismatch) { _ = try bob.decrypt(try nextEpoch.encrypt(content("x"))) }
        let otherGroup = try SenderKeyChain.create(groupID: [UInt8](repeating: 1, count: 16), epoch: 1, using: random)
        #expect(throws: ProtocolError.senderMismatch) { _ = try bob.decrypt(try otherGroup.encrypt(content("x"))) }
        #expect(throws: ProtocolError.self) { _ = try bob.encrypt(content("a receiving chain does not send")) }
        _ = alice
    }

    @Test func aMessageTooFarAheadIsRefusedBeforeAnyDerivation() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 1, using: random)
        let bob = try reader(of: alice)
        for _ in 0...RatchetLimits.maxForwardJump { _ = try alice.encrypt(content("lost")) }
        #expect(throws: ProtocolError.messageGapTooLarge) { _ = try bob.decrypt(try alice.encrypt(content("too far"))) }
        #expect(bob.iteration == 0)
    }

    /// The iteration is the sender's number: a message at 2³² − 1 (which no
    /// sender sends) is malformed even when it is validly signed and sealed
    /// for the chain, so no receiver computes n + 1 on it (which would trap).
    @Test func theLastIterationIsRefusedAsMalformed() throws {
        let chainKey = SecureBytes(randomCount: 32, using: random), seed = SecureBytes(randomCount: 32, using: random)
        let alice = try SenderKeyChain.own(groupID: group, epoch: 1, chainKey: chainKey, signingSeed: seed, iteration: UInt32.max - 1)
        let bob = try reader(of: alice)
        _ = try alice.encrypt(content("the last one a sender may send"))
        #expect(throws: ProtocolError.self) { _ = try alice.encrypt(content("one too many")) }
        // Forged by the holder of Alice's keys: MK for 2³² − 1, sealed and signed as she would.
        let lastChainKey = try alice.distribution(from: aliceIdentity).chainKey
        let messageKey = SecureBytes(copying: HMACSHA256.authenticationCode(for: [RatchetConstants.messageKeyConstant], key: lastChainKey))
        let head: [UInt8] = [0x01] + group + [0, 0, 0, 1] + alice.signingKey.rawRepresentation + [0xff, 0xff, 0xff, 0xff]
        let body = try XChaCha20Poly1305.seal(try Padding.pad(content("past the end")), key: messageKey, nonce: [UInt8](repeating: 0, count: 24),
                                              associatedData: head)
        let message = head + body + (try Ed25519.PrivateKey(seed: seed)).signature(for: head + body)
        #expect(throws: ProtocolError.malformed(what: "group message (iteration 2³² − 1)")) { _ = try bob.decrypt(message) }
    }

    @Test func distributionsRoundTripAndNeverPrintTheirKey() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 7, using: random)
        _ = try alice.encrypt(content("one"))
        let distribution = try alice.distribution(from: aliceIdentity)
        let encoded = distribution.encoded
        #expect(encoded.count == SenderKeyWire.distributionLength)
        let decoded = try SenderKeyDistribution.decode(encoded)
        #expect(decoded.groupID == group && decoded.epoch == 7 && decoded.iteration == 1)
        #expect(decoded.chainKey == distribution.chainKey && decoded.signingKey == alice.signingKey && decoded.signature == distribution.signature)
        let keyHex = Hex.encode(distribution.chainKey.copyBytes())
        for text in [String(describing: distribution), String(reflecting: distribution)] { #expect(!text.contains(keyHex)) }
        var dumped = ""
        dump(distribution, to: &dumped)
        #expect(!dumpShows(distribution.chainKey.copyBytes(), in: dumped))
        #expect(throws: ProtocolError.self) { _ = try SenderKeyDistribution.decode(Array(encoded.dropLast())) }
        #expect(throws: ProtocolError.self) { _ = try SenderKeyDistribution.decode(encoded + [0]) }
        #expect(throws: ProtocolError.unsupportedVersion(3)) { _ = try SenderKeyDistribution.decode([3] + encoded.dropFirst()) }
    }

    // MARK: Proof of possession (docs/PROTOCOL.md §18.1)

    /// The weakness this closes: Mallory, a member, names Alice's signing key
    /// (seen in Alice's group messages) in a distribution of her own, to a
    /// member who holds no chain of Alice's yet. She holds only her own
    /// signing key, so that is all she can sign with; nor can she pass on the
    /// distribution Alice gave her, which is signed for Alice.
    @Test func aDistributionNamingAnotherMembersSigningKeyIsRefused() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 1, using: random)
        let mallory = try SenderKeyChain.create(groupID: group, epoch: 1, using: random)
        let hers = try mallory.distribution(from: malloryIdentity)
        let namingAlice = try SenderKeyDistribution(groupID: group, epoch: 1, iteration: 0, chainKey: hers.chainKey,
                                                    signingKey: alice.signingKey, signature: hers.signature)
        let signedByHerWithHerOwnKey = try SenderKeyDistribution(
            groupID: group, epoch: 1, iteration: 0, chainKey: hers.chainKey, signingKey: alice.signingKey,
            signature: Ed25519.PrivateKey(seed: SecureBytes(randomCount: 32, using: random)).signature(for: namingAlice.transcript(member: malloryIdentity)))
        let refused = ProtocolError.invalidSignature(what: "sender key distribution (not signed with the signing key it names, for its sender, group and epoch)")
        for forged in [namingAlice, signedByHerWithHerOwnKey] {
            #expect(throws: refused) { _ = try SenderKeyChain(distribution: forged, from: malloryIdentity) }
        }
        // Alice's own distribution, passed on by Mallory, is refused; from Alice it is taken.
        let alices = try alice.distribution(from: aliceIdentity)
        #expect(throws: refused) { _ = try SenderKeyChain(distribution: alices, from: malloryIdentity) }
        let bob = try SenderKeyChain(distribution: alices, from: aliceIdentity)
        #expect(try bob.decrypt(try alice.encrypt(content("really alice"))) == content("really alice"))
        // And Mallory's own, from her, is taken as ever.
        _ = try SenderKeyChain(distribution: hers, from: malloryIdentity)
    }

    /// Every byte is covered: any altered byte of a distribution is refused,
    /// either as malformed (the version, a signing key that is not a point)
    /// or by the signature.
    @Test func anAlteredDistributionIsRefused() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 1, using: random)
        let encoded = try alice.distribution(from: aliceIdentity).encoded
        for index in encoded.indices {
            var altered = encoded
            altered[index] ^= 0x01
            #expect(throws: ProtocolError.self, "byte \(index)") {
                _ = try SenderKeyChain(distribution: try SenderKeyDistribution.decode(altered), from: aliceIdentity)
            }
        }
        let unsignedSignature = try SenderKeyDistribution.decode(Array(encoded[..<SenderKeyWire.distributionBodyLength])
                                                                   + [UInt8](repeating: 0, count: 64))
        #expect(throws: ProtocolError.self) { _ = try SenderKeyChain(distribution: unsignedSignature, from: aliceIdentity) }
    }

    /// The group and the epoch are signed: Alice's distribution, given by
    /// Alice herself, does not stand for another group or another epoch.
    @Test func aDistributionReplayedIntoAnotherGroupOrEpochIsRefused() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 4, using: random)
        let given = try alice.distribution(from: aliceIdentity)
        let otherGroup = try SenderKeyDistribution(groupID: [UInt8](repeating: 0x48, count: 16), epoch: 4, iteration: given.iteration,
                                                   chainKey: given.chainKey, signingKey: given.signingKey, signature: given.signature)
        let otherEpoch = try SenderKeyDistribution(groupID: group, epoch: 5, iteration: given.iteration, chainKey: given.chainKey,
                                                   signingKey: given.signingKey, signature: given.signature)
        let laterIteration = try SenderKeyDistribution(groupID: group, epoch: 4, iteration: given.iteration + 1, chainKey: given.chainKey,
                                                       signingKey: given.signingKey, signature: given.signature)
        for replayed in [otherGroup, otherEpoch, laterIteration] {
            #expect(throws: ProtocolError.self) { _ = try SenderKeyChain(distribution: replayed, from: aliceIdentity) }
        }
        _ = try SenderKeyChain(distribution: given, from: aliceIdentity)
    }

    /// The unsigned version 0x01 is refused on its own, with a reason that
    /// says so, alone and inside content 0x0B.
    @Test func anUnsignedDistributionOfVersion1IsRefused() throws {
        let alice = try SenderKeyChain.create(groupID: group, epoch: 1, using: random)
        let unsigned = [UInt8(0x01)] + Array(try alice.distribution(from: aliceIdentity).encoded[1..<SenderKeyWire.distributionBodyLength])
        #expect(unsigned.count == 89)
        var reason = ""
        do { _ = try SenderKeyDistribution.decode(unsigned) } catch { reason = error.description }
        #expect(reason.contains("version 1 carries no signature and is refused"), "\(reason)")
        let content: [UInt8] = [0x01, 0x0B] + [UInt8](repeating: 7, count: 16) + [UInt8](repeating: 0, count: 8) + unsigned
        #expect(throws: ProtocolError.self) { _ = try Content(decoding: content) }
        do { _ = try Content(decoding: content) } catch { #expect(error.description.contains("version 1"), "\(error)") }
    }

    /// Only one's own chain gives a distribution: a copy of another member's cannot sign one.
    @Test func aReceivingChainGivesNoDistribution() throws {
        let (_, bob) = try pair()
        #expect(throws: ProtocolError.self) { _ = try bob.distribution(from: aliceIdentity) }
    }

    @Test func contentTooLargeToSendLeavesTheChainAsItWas() throws {
        let (alice, bob) = try pair()
        #expect(throws: ProtocolError.self) { _ = try alice.encrypt([UInt8](repeating: 1, count: Padding.maximumContentLength + 1)) }
        #expect(alice.iteration == 0)
        #expect(try bob.decrypt(try alice.encrypt(content("next"))) == content("next"))
    }

    @Test func messageLengthsFollowThePaddingBuckets() throws {
        let (alice, _) = try pair()
        #expect(try alice.encrypt([]).count == SenderKeyWire.minimumMessageLength)
        #expect(try alice.encrypt([UInt8](repeating: 1, count: Padding.maximumContentLength)).count == SenderKeyWire.maximumMessageLength)
        #expect(throws: ProtocolError.self) { _ = try SenderKeyMessageHead(of: [UInt8](repeating: 1, count: SenderKeyWire.minimumMessageLength - 1)) }
    }
}
