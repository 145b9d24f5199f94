import HushCrypto

/// A large group's membership (docs/PROTOCOL.md §18.4, content `0x15`): like
/// a `GroupState` but for up to 1 000 members and without labels, and with
/// chains derived from its secret instead of distributed (`MemberChains`).
/// Designed, not yet used by the messenger.
///
///     group id (16) || epoch (u32) || secret (32) || name length (u8: 1…64) || name
///     || member count (u16: 1…1 000) || member × (identity key (32) || role (u8))
public struct LargeGroupState: Sendable, Equatable, CustomStringConvertible {
    public static let maxMembers = 1_000
    /// The content type that carries it, also the digest's first byte, so a
    /// large state's digest never equals a §18.2 state's.
    public static let contentType: UInt8 = 0x15

    public struct Member: Sendable, Equatable {
        public let identityKey: IdentityKey
        public let role: GroupState.Role

        public init(identityKey: IdentityKey, role: GroupState.Role) {
            self.identityKey = identityKey
            self.role = role
        }

        public var isAdmin: Bool { role == .admin }
    }

    public let groupID: [UInt8]
    public let epoch: UInt32
    public let secret: SecureBytes
    public let name: String
    public let members: [Member]

    public init(groupID: [UInt8], epoch: UInt32, secret: SecureBytes, name: String, members: [Member]) throws(ProtocolError) {
        try GroupState.check(groupID: groupID, secret: secret, name: name, members: members.map(\.identityKey),
                             admins: members.filter(\.isAdmin).count, maxMembers: Self.maxMembers)
        self.groupID = groupID
        self.epoch = epoch
        self.secret = secret
        self.name = name
        self.members = members
    }

    public func member(_ key: IdentityKey) -> Member? { members.first { $0.identityKey == key } }
    public func isAdmin(_ key: IdentityKey) -> Bool { member(key)?.isAdmin ?? false }

    /// The encoding; it contains the secret (it travels only inside the pairwise sessions).
    public var encoded: [UInt8] {
        var out = groupID
        out.reserveCapacity(16 + 4 + 32 + 1 + name.utf8.count + 2 + members.count * 33)
        out.appendBigEndian(epoch)
        secret.withUnsafeBytes { out.append(contentsOf: $0) }
        let nameBytes = Array(name.utf8)
        out.append(UInt8(nameBytes.count))
        out += nameBytes
        out.appendBigEndian(UInt16(members.count))
        for member in members {
            out += member.identityKey.rawRepresentation
            out.append(member.role.rawValue)
        }
        return out
    }

    /// SHA-256(0x15 || encoding): the tie-break between two states of one epoch.
    public var digest: [UInt8] { SHA256.hash([Self.contentType] + encoded) }

    /// Whether this state replaces `current`: a later epoch, or the same epoch with a lower digest (§18.2).
    public func supersedes(_ current: LargeGroupState) -> Bool {
        GroupState.supersedes(epoch: epoch, digest: digest, current: (current.epoch, current.digest))
    }

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> LargeGroupState {
        var reader = ByteReader(bytes, what: "large group state")
        let groupID = try reader.read(SenderKeyWire.groupIDLength)
        let epoch = try reader.u32()
        var secret = try reader.read(GroupLimits.secretLength)
        defer { ConstantTime.wipe(&secret) }
        let nameLength = Int(try reader.u8())
        guard (1...GroupLimits.maxNameLength).contains(nameLength) else { throw .malformed(what: "group name length") }
        let name = try Content.utf8(try reader.read(nameLength))
        let count = Int(try reader.u16())
        guard (1...Self.maxMembers).contains(count) else { throw .malformed(what: "large group member count") }
        var members: [Member] = []
        members.reserveCapacity(count)
        for _ in 0..<count {
            let key = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
            guard let role = GroupState.Role(rawValue: try reader.u8()) else { throw .malformed(what: "group member role") }
            members.append(Member(identityKey: key, role: role))
        }
        try reader.finish()
        return try LargeGroupState(groupID: groupID, epoch: epoch, secret: SecureBytes(copying: secret), name: name, members: members)
    }

    /// The key of this state's group envelopes, as §18.3 derives it for any state.
    public func envelopeKey() throws(ProtocolError) -> SecureBytes {
        try GroupState.envelopeKey(secret: secret, groupID: groupID)
    }

    /// Every member's first chain key (`MemberChains`), derived at once so
    /// the secret can be forgotten afterwards (§18.4).
    public func initialChainKeys() throws(ProtocolError) -> [(member: IdentityKey, chainKey: SecureBytes)] {
        var keys: [(member: IdentityKey, chainKey: SecureBytes)] = []
        keys.reserveCapacity(members.count)
        for member in members {
            keys.append((member.identityKey, try MemberChains.initialChainKey(of: member.identityKey, groupID: groupID, epoch: epoch,
                                                                             secret: secret)))
        }
        return keys
    }

    public var description: String {
        "LargeGroupState(group \(Hex.encode(groupID)), epoch \(epoch), \(members.count) members, secret redacted)"
    }
}

/// A large group's chains (docs/PROTOCOL.md §18.4): nothing is distributed;
/// each member's first chain key comes from the state's secret,
///
///     CK_0(M) = HKDF(salt = group id, ikm = secret, info = "hush/v1/member-chain" 0x00 || epoch (u32) || IK_M, 32)
///
/// and each member's signing key reaches the others in its messages, bound
/// by the member's identity key (`MemberKeyBinding`).
public enum MemberChains {
    public static func initialChainKey(of member: IdentityKey, groupID: [UInt8], epoch: UInt32,
                                       secret: SecureBytes) throws(ProtocolError) -> SecureBytes {
        var info = Labels.memberChain
        info.appendBigEndian(epoch)
        info += member.rawRepresentation
        do {
            return try HKDF.deriveKey(inputKeyMaterial: secret, salt: groupID, info: info, length: 32)
        } catch {
            throw .crypto(error)
        }
    }
}

/// A member's signature, by its identity key, over the signing key it uses
/// in one large group's state (docs/PROTOCOL.md §18.4):
///
///     binding = Ed25519(IK.private, "hush/v1/member-signing-key" 0x00 || group id (16) || epoch (u32) || SK.public (32))
///
/// It is what makes large-group messages attributable beyond the group
/// (§18.4, "What it costs").
public enum MemberKeyBinding {
    static func signed(groupID: [UInt8], epoch: UInt32, signingKey: Ed25519.PublicKey) -> [UInt8] {
        var message = Labels.memberSigningKey + groupID
        message.appendBigEndian(epoch)
        return message + signingKey.rawRepresentation
    }

    public static func sign(by identity: IdentityKeyPair, groupID: [UInt8], epoch: UInt32, signingKey: Ed25519.PublicKey) -> [UInt8] {
        identity.signingKey.signature(for: signed(groupID: groupID, epoch: epoch, signingKey: signingKey))
    }

    public static func isValid(_ binding: [UInt8], by member: IdentityKey, groupID: [UInt8], epoch: UInt32, signingKey: Ed25519.PublicKey) -> Bool {
        member.signingKey.isValidSignature(binding, for: signed(groupID: groupID, epoch: epoch, signingKey: signingKey))
    }
}
