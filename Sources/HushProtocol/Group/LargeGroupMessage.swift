import HushCrypto

/// The head of a large group's message (docs/PROTOCOL.md §18.4, version
/// `0x02`): §18.1's head, then the member's identity key and its binding of
/// the signing key, since no distribution told the receiver whose key it is.
///
///     0x02 || group id (16) || epoch (u32) || SK.public (32) || n (u32) || IK_M (32) || binding (64)   -- 153 bytes
public struct LargeGroupMessageHead: Equatable, Sendable {
    public static let version: UInt8 = 0x02
    public static let length = SenderKeyWire.headLength + IdentityKey.length + Ed25519.signatureLength
    public static let minimumMessageLength = length + Padding.minimumPaddedLength + SenderKeyWire.tagLength + SenderKeyWire.signatureLength
    public static let maximumMessageLength = length + Padding.maximumPaddedLength + SenderKeyWire.tagLength + SenderKeyWire.signatureLength

    public let groupID: [UInt8]
    public let epoch: UInt32
    public let signingKey: Ed25519.PublicKey
    public let iteration: UInt32
    public let member: IdentityKey
    public let binding: [UInt8]

    public var encoded: [UInt8] {
        var out = SenderKeyMessageHead(groupID: groupID, epoch: epoch, signingKey: signingKey, iteration: iteration).encoded
        out[0] = Self.version
        return out + member.rawRepresentation + binding
    }

    init(groupID: [UInt8], epoch: UInt32, signingKey: Ed25519.PublicKey, iteration: UInt32, member: IdentityKey, binding: [UInt8]) {
        self.groupID = groupID
        self.epoch = epoch
        self.signingKey = signingKey
        self.iteration = iteration
        self.member = member
        self.binding = binding
    }

    /// The head of `message`, its shape only: version, bounds, an iteration below 2³² − 1.
    public init(of message: [UInt8]) throws(ProtocolError) {
        guard let first = message.first else { throw .malformed(what: "group message (empty)") }
        guard first == Self.version else { throw .unsupportedVersion(first) }
        guard (Self.minimumMessageLength...Self.maximumMessageLength).contains(message.count) else {
            throw .malformed(what: "large group message (length)")
        }
        var reader = ByteReader(Array(message[0..<Self.length]), what: "large group message head")
        _ = try reader.u8()
        groupID = try reader.read(SenderKeyWire.groupIDLength)
        epoch = try reader.u32()
        do { signingKey = try Ed25519.PublicKey(rawRepresentation: try reader.read(32)) } catch { throw .malformed(what: "group message signing key") }
        iteration = try reader.u32()
        member = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
        binding = try reader.read(Ed25519.signatureLength)
        try reader.finish()
        guard iteration < UInt32.max else { throw .malformed(what: "group message (iteration 2³² − 1)") }
    }
}

/// One member's chain in one large group state (docs/PROTOCOL.md §18.4),
/// from its derived first chain key. Another member's chain learns its
/// signing key from the first message that verifies (binding, then
/// signature) and opens; after that it takes no other. §18.1's key
/// schedule (`SenderKeyChain`) does the rest.
public final class LargeGroupChain {
    public let groupID: [UInt8]
    public let epoch: UInt32
    public let member: IdentityKey
    /// Kept (and stored) only while no message moved the chain: once `keys`
    /// exists it holds the ratcheted chain key, and this one, which gives
    /// every earlier message key, is not written out again.
    let initialChainKey: SecureBytes
    /// Bound to a signing key: one's own from the start, another member's at its first message.
    var keys: SenderKeyChain?
    let binding: [UInt8]?

    /// A chain as `deserialize` reads it back.
    init(groupID: [UInt8], epoch: UInt32, member: IdentityKey, initialChainKey: SecureBytes, keys: SenderKeyChain?, binding: [UInt8]?) {
        self.groupID = groupID
        self.epoch = epoch
        self.member = member
        self.initialChainKey = initialChainKey
        self.keys = keys
        self.binding = binding
    }

    /// Another member's chain (`member`) in `state`, at iteration 0.
    public init(member: IdentityKey, in state: LargeGroupState) throws(ProtocolError) {
        guard state.member(member) != nil else { throw .malformed(what: "large group chain (not a member)") }
        groupID = state.groupID
        epoch = state.epoch
        self.member = member
        initialChainKey = try MemberChains.initialChainKey(of: member, groupID: state.groupID, epoch: state.epoch, secret: state.secret)
        binding = nil
    }

    /// One's own chain in `state`: the derived chain key, a signing key from
    /// `signingSeed` (fresh for every state) and its binding.
    public init(own identity: IdentityKeyPair, in state: LargeGroupState, signingSeed: SecureBytes) throws(ProtocolError) {
        guard state.member(identity.publicKey) != nil else { throw .malformed(what: "large group chain (not a member)") }
        groupID = state.groupID
        epoch = state.epoch
        member = identity.publicKey
        initialChainKey = try MemberChains.initialChainKey(of: member, groupID: groupID, epoch: epoch, secret: state.secret)
        let own = try SenderKeyChain.own(groupID: groupID, epoch: epoch, chainKey: initialChainKey.slice(0..<32), signingSeed: signingSeed)
        keys = own
        binding = MemberKeyBinding.sign(by: identity, groupID: groupID, epoch: epoch, signingKey: own.signingKey)
    }

    /// A chain writing as `member` with any signing key and `binding`: what
    /// another member of the state (who can derive every chain) would try,
    /// without `member`'s identity key. For vectors and tests of the refusal.
    @_spi(Vectors)
    public init(impersonating member: IdentityKey, in state: LargeGroupState, signingSeed: SecureBytes, binding: [UInt8]) throws(ProtocolError) {
        groupID = state.groupID
        epoch = state.epoch
        self.member = member
        initialChainKey = try MemberChains.initialChainKey(of: member, groupID: groupID, epoch: epoch, secret: state.secret)
        keys = try SenderKeyChain.own(groupID: groupID, epoch: epoch, chainKey: initialChainKey.slice(0..<32), signingSeed: signingSeed)
        self.binding = binding
    }

    /// The signing key this chain is bound to, once it is.
    public var signingKey: Ed25519.PublicKey? { keys?.signingKey }
    /// The next iteration: the next message sent, or the lowest one not yet derived.
    public var iteration: UInt32 { keys?.iteration ?? 0 }

    /// Encrypts `content` as one's own next message, version `0x02`.
    public func encrypt(_ content: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard let keys, let binding else { throw .sessionUnusable("another member's chain only decrypts") }
        return try keys.seal(content) { iteration in
            LargeGroupMessageHead(groupID: groupID, epoch: epoch, signingKey: keys.signingKey, iteration: iteration, member: member,
                                  binding: binding).encoded
        }
    }

    /// Opens another member's message. Refuses, keeping nothing: another
    /// group, epoch or member (`senderMismatch`); a binding or signature that
    /// does not verify (`invalidSignature`, before anything is derived); a
    /// second signing key for this member and state (`senderMismatch`); and
    /// everything `SenderKeyChain` refuses (a gap too large, a replay, an alteration).
    public func decrypt(_ message: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard binding == nil else { throw .senderMismatch }
        let head = try LargeGroupMessageHead(of: message)
        guard ConstantTime.equals(head.groupID, groupID), head.epoch == epoch, head.member == member else { throw .senderMismatch }
        if let bound = keys?.signingKey, bound != head.signingKey { throw .senderMismatch }
        guard MemberKeyBinding.isValid(head.binding, by: member, groupID: groupID, epoch: epoch, signingKey: head.signingKey) else {
            throw .invalidSignature(what: "large group message (binding)")
        }
        let signed = message.count - SenderKeyWire.signatureLength
        guard head.signingKey.isValidSignature(message[signed...], for: message[..<signed]) else {
            throw .invalidSignature(what: "large group message")
        }
        // Bound to the signing key only if this message opens.
        let chain = keys ?? SenderKeyChain(groupID: groupID, epoch: epoch, signingKey: head.signingKey, signer: nil,
                                           chainKey: initialChainKey.slice(0..<32), iteration: 0)
        let content = try chain.open(message[LargeGroupMessageHead.length..<signed], at: head.iteration,
                                     associatedData: message[..<LargeGroupMessageHead.length])
        keys = chain
        return content
    }
}
