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
    /// version || group id || epoch || iteration || chain key || signing key.
    public static let distributionLength = 1 + groupIDLength + 4 + 4 + 32 + 32
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
public struct SenderKeyDistribution: Sendable {
    public let groupID: [UInt8]
    public let epoch: UInt32
    public let iteration: UInt32
    public let chainKey: SecureBytes
    public let signingKey: Ed25519.PublicKey

    public init(groupID: [UInt8], epoch: UInt32, iteration: UInt32, chainKey: SecureBytes, signingKey: Ed25519.PublicKey) throws(ProtocolError) {
        guard groupID.count == SenderKeyWire.groupIDLength else { throw .malformed(what: "group id (16 bytes)") }
        guard chainKey.count == 32 else { throw .malformed(what: "sender chain key (32 bytes)") }
        self.groupID = groupID
        self.epoch = epoch
        self.iteration = iteration
        self.chainKey = chainKey
        self.signingKey = signingKey
    }

    /// The encoding; it contains the chain key (wipe it after sealing).
    public var encoded: [UInt8] {
        var out: [UInt8] = [SenderKeyWire.version]
        out.reserveCapacity(SenderKeyWire.distributionLength)
        out += groupID
        out.appendBigEndian(epoch)
        out.appendBigEndian(iteration)
        chainKey.withUnsafeBytes { out.append(contentsOf: $0) }
        out += signingKey.rawRepresentation
        return out
    }

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> SenderKeyDistribution {
        var reader = ByteReader(bytes, what: "sender key distribution")
        let version = try reader.u8()
        guard version == SenderKeyWire.version else { throw .unsupportedVersion(version) }
        let groupID = try reader.read(SenderKeyWire.groupIDLength)
        let epoch = try reader.u32()
        let iteration = try reader.u32()
        var chain = try reader.read(32)
        defer { ConstantTime.wipe(&chain) }
        let signingKey: Ed25519.PublicKey
        do { signingKey = try Ed25519.PublicKey(rawRepresentation: try reader.read(32)) } catch { throw .malformed(what: "sender signing key") }
        try reader.finish()
        return try SenderKeyDistribution(groupID: groupID, epoch: epoch, iteration: iteration, chainKey: SecureBytes(copying: chain),
                                         signingKey: signingKey)
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
