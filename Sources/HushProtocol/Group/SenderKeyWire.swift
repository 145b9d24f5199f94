import HushCrypto

/// The two structures of sender keys on the wire (docs/PROTOCOL.md §18),
/// with their fixed lengths and bounds.
public enum SenderKeyWire {
    public static let version: UInt8 = 0x01
    public static let groupIDLength = 16
    /// version || group id || epoch || signing key || iteration.
    public static let headLength = 1 + groupIDLength + 4 + 32 + 4
    public static let signatureLength = 64
    public static let tagLength = 16
    /// The shortest and longest group messages: a head, the padded content
    /// sealed (§8's bounds), and the signature.
    public static let minimumMessageLength = headLength + Padding.minimumPaddedLength + tagLength + signatureLength
    public static let maximumMessageLength = headLength + Padding.maximumPaddedLength + tagLength + signatureLength
    /// A distribution's own version: 0x02, signed. Version 0x01 (the same
    /// fields, unsigned) is refused (docs/PROTOCOL.md §18.1).
    public static let distributionVersion: UInt8 = 0x02
    public static let unsignedDistributionVersion: UInt8 = 0x01
    /// version || group id || epoch || iteration || chain key || signing key: what the signature follows.
    public static let distributionBodyLength = 1 + groupIDLength + 4 + 4 + 32 + 32
    /// The body, then its signature.
    public static let distributionLength = distributionBodyLength + signatureLength
}

/// The head of a group message: what the signature and the AEAD's
/// associated data cover, read before anything is derived.
public struct SenderKeyMessageHead: Equatable, Sendable {
    public let groupID: [UInt8]
    public let epoch: UInt32
    public let signingKey: Ed25519.PublicKey
    public let iteration: UInt32

    public var encoded: [UInt8] {
        var out: [UInt8] = [SenderKeyWire.version]
        out.reserveCapacity(SenderKeyWire.headLength)
        out += groupID
        out.appendBigEndian(epoch)
        out += signingKey.rawRepresentation
        out.appendBigEndian(iteration)
        return out
    }

    /// The head of `message`, checking only its shape (the version, the
    /// length bounds): who may have sent it is the caller's lookup, by group,
    /// epoch and signing key.
    public init(of message: [UInt8]) throws(ProtocolError) {
        guard let first = message.first else { throw .malformed(what: "group message (empty)") }
        guard first == SenderKeyWire.version else { throw .unsupportedVersion(first) }
        guard message.count >= SenderKeyWire.minimumMessageLength, message.count <= SenderKeyWire.maximumMessageLength else {
            throw .malformed(what: "group message (length)")
        }
        var reader = ByteReader(Array(message[0..<SenderKeyWire.headLength]), what: "group message head")
        _ = try reader.u8()
        groupID = try reader.read(SenderKeyWire.groupIDLength)
        epoch = try reader.u32()
        do { signingKey = try Ed25519.PublicKey(rawRepresentation: try reader.read(32)) } catch { throw .malformed(what: "group message signing key") }
        iteration = try reader.u32()
        try reader.finish()
        // No sender sends at 2³² − 1 (§18), and a receiver that took it would overflow its next iteration.
        guard iteration < UInt32.max else { throw .malformed(what: "group message (iteration 2³² − 1)") }
    }

    init(groupID: [UInt8], epoch: UInt32, signingKey: Ed25519.PublicKey, iteration: UInt32) {
        self.groupID = groupID
        self.epoch = epoch
        self.signingKey = signingKey
        self.iteration = iteration
    }
}

/// What a member sends each other member, over their pairwise session, so
/// they can read its group messages from `iteration` on (never before).
/// It holds the chain key: it travels only inside an encrypted session
/// message, and its `description` shows no secret.
///
/// It is signed with the chain's signing key over the member's identity key
/// and every field (docs/PROTOCOL.md §18.1), so only the holder of the
/// signing key can give it, and only as itself: a member naming another
/// member's signing key, or passing on a distribution it was given, is
/// refused by `verify(from:)`, the one check every receiver makes before
/// it keeps a chain (`SenderKeyChain(distribution:from:)`).
public struct SenderKeyDistribution: Sendable {
    public let groupID: [UInt8]
    public let epoch: UInt32
    public let iteration: UInt32
    public let chainKey: SecureBytes
    public let signingKey: Ed25519.PublicKey
    public let signature: [UInt8]

    public init(groupID: [UInt8], epoch: UInt32, iteration: UInt32, chainKey: SecureBytes, signingKey: Ed25519.PublicKey,
                signature: [UInt8]) throws(ProtocolError) {
        guard groupID.count == SenderKeyWire.groupIDLength else { throw .malformed(what: "group id (16 bytes)") }
        guard chainKey.count == 32 else { throw .malformed(what: "sender chain key (32 bytes)") }
        guard signature.count == SenderKeyWire.signatureLength else { throw .malformed(what: "sender key distribution signature (64 bytes)") }
        self.groupID = groupID
        self.epoch = epoch
        self.iteration = iteration
        self.chainKey = chainKey
        self.signingKey = signingKey
        self.signature = signature
    }

    /// A distribution of the chain `signer` signs for, given by `member`.
    static func signed(groupID: [UInt8], epoch: UInt32, iteration: UInt32, chainKey: SecureBytes, signer: Ed25519.PrivateKey,
                       member: IdentityKey) throws(ProtocolError) -> SenderKeyDistribution {
        // Both hold the chain key: wiped once signed.
        var body = body(groupID: groupID, epoch: epoch, iteration: iteration, chainKey: chainKey, signingKey: signer.publicKey)
        var transcript = transcript(member: member, body: body)
        defer { ConstantTime.wipe(&body); ConstantTime.wipe(&transcript) }
        return try SenderKeyDistribution(groupID: groupID, epoch: epoch, iteration: iteration, chainKey: chainKey,
                                         signingKey: signer.publicKey, signature: signer.signature(for: transcript))
    }

    /// Refuses a distribution whose signature does not verify under the
    /// signing key it names for `member` (the identity whose pairwise session
    /// delivered it) and its own group, epoch, iteration and chain key
    /// (`invalidSignature`): another member's signing key, a distribution
    /// passed on by someone other than its member, or one altered.
    public func verify(from member: IdentityKey) throws(ProtocolError) {
        var transcript = transcript(member: member)
        defer { ConstantTime.wipe(&transcript) }
        guard signingKey.isValidSignature(signature, for: transcript) else {
            throw .invalidSignature(what: "sender key distribution (not signed with the signing key it names, for its sender, group and epoch)")
        }
    }

    /// The bytes the signature covers (docs/PROTOCOL.md §18.1):
    /// "hush/v1/sender-key-distribution" 0x00 || member's identity key || body.
    /// They contain the chain key (wipe them after use).
    public func transcript(member: IdentityKey) -> [UInt8] {
        var body = self.body
        defer { ConstantTime.wipe(&body) }
        return Self.transcript(member: member, body: body)
    }

    private static func transcript(member: IdentityKey, body: [UInt8]) -> [UInt8] {
        Labels.senderKeyDistribution + member.rawRepresentation + body
    }

    /// version || group id || epoch || iteration || chain key || signing key.
    private var body: [UInt8] {
        Self.body(groupID: groupID, epoch: epoch, iteration: iteration, chainKey: chainKey, signingKey: signingKey)
    }

    private static func body(groupID: [UInt8], epoch: UInt32, iteration: UInt32, chainKey: SecureBytes,
                             signingKey: Ed25519.PublicKey) -> [UInt8] {
        var out: [UInt8] = [SenderKeyWire.distributionVersion]
        out.reserveCapacity(SenderKeyWire.distributionLength)
        out += groupID
        out.appendBigEndian(epoch)
        out.appendBigEndian(iteration)
        chainKey.withUnsafeBytes { out.append(contentsOf: $0) }
        out += signingKey.rawRepresentation
        return out
    }

    /// The encoding, body then signature; it contains the chain key (wipe it after sealing).
    public var encoded: [UInt8] {
        var out = body
        out += signature
        return out
    }

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> SenderKeyDistribution {
        var reader = ByteReader(bytes, what: "sender key distribution")
        let distribution = try decode(from: &reader)
        try reader.finish()
        return distribution
    }

    /// Reads one distribution (content 0x0B's body). The version comes
    /// first, so an unsigned one of version 0x01 is refused as that, with a
    /// reason that says what to do, whatever its length.
    static func decode(from reader: inout ByteReader) throws(ProtocolError) -> SenderKeyDistribution {
        let version = try reader.u8()
        if version == SenderKeyWire.unsignedDistributionVersion {
            throw .malformed(what: "sender key distribution: version 1 carries no signature and is refused (docs/PROTOCOL.md §18.1); the sender must update Hush")
        }
        guard version == SenderKeyWire.distributionVersion else { throw .unsupportedVersion(version) }
        let groupID = try reader.read(SenderKeyWire.groupIDLength)
        let epoch = try reader.u32()
        let iteration = try reader.u32()
        var chain = try reader.read(32)
        defer { ConstantTime.wipe(&chain) }
        let signingKey: Ed25519.PublicKey
        do { signingKey = try Ed25519.PublicKey(rawRepresentation: try reader.read(32)) } catch { throw .malformed(what: "sender signing key") }
        let signature = try reader.read(SenderKeyWire.signatureLength)
        return try SenderKeyDistribution(groupID: groupID, epoch: epoch, iteration: iteration, chainKey: SecureBytes(copying: chain),
                                         signingKey: signingKey, signature: signature)
    }
}

extension SenderKeyDistribution: CustomStringConvertible {
    public var description: String {
        "SenderKeyDistribution(group \(Hex.encode(groupID)), epoch \(epoch), iteration \(iteration), signing key \(Hex.encode(signingKey.rawRepresentation)))"
    }
}

extension SenderKeyDistribution: Equatable {
    public static func == (lhs: SenderKeyDistribution, rhs: SenderKeyDistribution) -> Bool {
        ConstantTime.equals(lhs.encoded, rhs.encoded)
    }
}
