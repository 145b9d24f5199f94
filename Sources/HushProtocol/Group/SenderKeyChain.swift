import HushCrypto

/// One member's sender key for one group and epoch (docs/PROTOCOL.md §18):
/// a symmetric chain that ratchets forward once per message (KDF_CK of §7.1)
/// and an Ed25519 key that signs every message, so a member that holds the
/// chain (every member does) still cannot forge another member's messages,
/// and a leaked chain key opens nothing sent before it.
///
/// The member's own chain (`create`) encrypts; a chain made from another
/// member's distribution decrypts, in any order within the bounds of
/// `RatchetLimits` (keys skipped over are kept, each used at most once).
/// Every step works on copies and keeps nothing unless the message
/// authenticated, so a forged or altered message leaves the chain as it was.
public final class SenderKeyChain {
    public let groupID: [UInt8]
    public let epoch: UInt32
    public let signingKey: Ed25519.PublicKey
    let signer: Ed25519.PrivateKey?
    var chainKey: SecureBytes
    /// The iteration `chainKey` is at: the next message sent, or the lowest one not yet derived.
    public private(set) var iteration: UInt32
    /// Message keys skipped over, oldest first (receiving chains only).
    var skipped: [(iteration: UInt32, key: SecureBytes)] = []

    init(groupID: [UInt8], epoch: UInt32, signingKey: Ed25519.PublicKey, signer: Ed25519.PrivateKey?, chainKey: SecureBytes,
                 iteration: UInt32) {
        self.groupID = groupID
        self.epoch = epoch
        self.signingKey = signingKey
        self.signer = signer
        self.chainKey = chainKey
        self.iteration = iteration
    }

    /// A new chain of one's own: a random chain key and signing key.
    public static func create(groupID: [UInt8], epoch: UInt32, using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> SenderKeyChain {
        try own(groupID: groupID, epoch: epoch, chainKey: SecureBytes(randomCount: 32, using: random),
                signingSeed: SecureBytes(randomCount: Ed25519.seedLength, using: random))
    }

    /// One's own chain from given keys (vectors; `create` draws them).
    @_spi(Vectors)
    public static func own(groupID: [UInt8], epoch: UInt32, chainKey: SecureBytes, signingSeed: SecureBytes,
                           iteration: UInt32 = 0) throws(ProtocolError) -> SenderKeyChain {
        guard groupID.count == SenderKeyWire.groupIDLength else { throw .malformed(what: "group id (16 bytes)") }
        guard chainKey.count == 32 else { throw .malformed(what: "sender chain key (32 bytes)") }
        let signer: Ed25519.PrivateKey
        do { signer = try Ed25519.PrivateKey(seed: signingSeed) } catch { throw .crypto(error) }
        return SenderKeyChain(groupID: groupID, epoch: epoch, signingKey: signer.publicKey, signer: signer, chainKey: chainKey,
                              iteration: iteration)
    }

    /// Another member's chain, from the distribution `member` sent (the
    /// identity whose pairwise session delivered it): refused unless its
    /// signature verifies for that member (`SenderKeyDistribution.verify`),
    /// so no chain is ever kept under a member that does not hold its
    /// signing key.
    public convenience init(distribution: SenderKeyDistribution, from member: IdentityKey) throws(ProtocolError) {
        try distribution.verify(from: member)
        self.init(groupID: distribution.groupID, epoch: distribution.epoch, signingKey: distribution.signingKey, signer: nil,
                  chainKey: distribution.chainKey.slice(0..<32), iteration: distribution.iteration)
    }

    /// What `member` (whose chain this is) sends the other members so they
    /// can read this chain's messages from the next one on, signed with the
    /// chain's signing key. Only one's own chain gives one.
    public func distribution(from member: IdentityKey) throws(ProtocolError) -> SenderKeyDistribution {
        guard let signer else { throw .sessionUnusable("another member's sender key is never given on") }
        return try SenderKeyDistribution.signed(groupID: groupID, epoch: epoch, iteration: iteration, chainKey: chainKey.slice(0..<32),
                                                signer: signer, member: member)
    }

    /// Encrypts `content` as the next group message: head || AEAD || signature.
    public func encrypt(_ content: [UInt8]) throws(ProtocolError) -> [UInt8] {
        try seal(content) { SenderKeyMessageHead(groupID: groupID, epoch: epoch, signingKey: signingKey, iteration: $0).encoded }
    }

    /// The next message under `head(iteration)`: the head of either version
    /// (§18.1, or a large group's, §18.4), then the AEAD, then the signature.
    func seal(_ content: [UInt8], head makeHead: (UInt32) -> [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard let signer else { throw .sessionUnusable("another member's sender key only decrypts") }
        guard iteration < UInt32.max else { throw .sessionUnusable("the sender chain is exhausted: rotate the group's sender key") }
        let head = makeHead(iteration)
        var padded = try Padding.pad(content)
        defer { ConstantTime.wipe(&padded) }
        // On a copy: the chain moves only once the message exists.
        var working = chainKey.slice(0..<32)
        let messageKey = Self.advance(&working)
        var message = head
        do {
            message += try XChaCha20Poly1305.seal(padded, key: messageKey, nonce: DoubleRatchet.zeroNonce, associatedData: head)
        } catch {
            throw .crypto(error)
        }
        chainKey = working
        iteration += 1
        message += signer.signature(for: message)
        return message
    }

    /// Decrypts a group message of this chain. Refuses, leaving the chain as
    /// it was: another group, epoch or signing key (`senderMismatch`), a bad
    /// signature (`invalidSignature`, checked before anything is derived), a
    /// message too far ahead (`messageGapTooLarge`), one already read or
    /// older than the keys kept (`decryptionFailed`), and any alteration.
    public func decrypt(_ message: [UInt8]) throws(ProtocolError) -> [UInt8] {
        let head = try SenderKeyMessageHead(of: message)
        guard ConstantTime.equals(head.groupID, groupID), head.epoch == epoch, head.signingKey == signingKey else { throw .senderMismatch }
        let signed = message.count - SenderKeyWire.signatureLength
        guard signingKey.isValidSignature(message[signed...], for: message[..<signed]) else { throw .invalidSignature(what: "group message") }
        return try open(message[SenderKeyWire.headLength..<signed], at: head.iteration, associatedData: message[..<SenderKeyWire.headLength])
    }

    /// The key schedule's receiving half, for a message whose head and
    /// signature were checked (by `decrypt`, or `LargeGroupMessage`): opens
    /// `sealed` with the key of `iteration`, keeping nothing unless it opens.
    func open(_ sealed: ArraySlice<UInt8>, at messageIteration: UInt32, associatedData associated: ArraySlice<UInt8>) throws(ProtocolError) -> [UInt8] {
        if messageIteration < iteration {
            guard let index = skipped.firstIndex(where: { $0.iteration == messageIteration }) else { throw .decryptionFailed }
            let content = try Self.open(sealed, key: skipped[index].key, associatedData: associated)
            skipped.remove(at: index)
            return content
        }
        guard messageIteration - iteration <= UInt32(RatchetLimits.maxForwardJump) else { throw .messageGapTooLarge }
        var working = chainKey.slice(0..<32)
        var passed: [(iteration: UInt32, key: SecureBytes)] = []
        for skippedIteration in iteration..<messageIteration {
            passed.append((skippedIteration, Self.advance(&working)))
        }
        let content = try Self.open(sealed, key: Self.advance(&working), associatedData: associated)
        chainKey = working
        iteration = messageIteration + 1
        skipped += passed
        if skipped.count > RatchetLimits.maxSkippedKeysPerChain { skipped.removeFirst(skipped.count - RatchetLimits.maxSkippedKeysPerChain) }
        return content
    }

    /// How many skipped message keys the chain holds.
    public var skippedKeyCount: Int { skipped.count }

    /// MK = HMAC(CK, 0x01); CK := HMAC(CK, 0x02).
    private static func advance(_ chainKey: inout SecureBytes) -> SecureBytes {
        let messageKey = SecureBytes(count: 32)
        let next = chainKey.slice(0..<32)
        next.withUnsafeMutableBytes { chain in
            messageKey.withUnsafeMutableBytes { ChainStep.advance(chain, messageKey: $0) }
        }
        chainKey = next
        return messageKey
    }

    private static func open(_ sealed: ArraySlice<UInt8>, key: SecureBytes, associatedData: ArraySlice<UInt8>) throws(ProtocolError) -> [UInt8] {
        guard var padded = try? XChaCha20Poly1305.open(sealed, key: key, nonce: DoubleRatchet.zeroNonce, associatedData: associatedData)
        else { throw .decryptionFailed }
        defer { ConstantTime.wipe(&padded) }
        return try Padding.unpad(padded)
    }
}
