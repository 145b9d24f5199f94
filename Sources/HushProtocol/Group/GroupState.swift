import HushCrypto

/// A group's membership as its admins last set it (docs/PROTOCOL.md §18.2):
/// the whole state travels in every change, over the pairwise sessions, so a
/// member that missed changes (offline during two rotations) catches up from
/// the latest one alone. Two states are ordered by `epoch`, and two states of
/// one epoch (concurrent changes by two admins) by `digest`, lower first: every
/// member converges on the same state whatever order the changes arrive in.
///
///     group id (16) || epoch (u32) || secret (32) || name length (u8: 1…64) || name
///     || member count (u16: 1…256) || member × (identity key (32) || role (u8) || label length (u8: 0…64) || label)
///
/// `secret` keys the group envelope (`GroupEnvelope`) for this state only; a
/// new state draws a new one, so a removed member opens nothing sent after.
public struct GroupState: Sendable, Equatable, CustomStringConvertible {
    public enum Role: UInt8, Sendable {
        case member = 0x00
        case admin = 0x01
    }

    public struct Member: Sendable, Equatable {
        public let identityKey: IdentityKey
        public let role: Role
        /// What the admin who wrote the state calls this member (0…64 UTF-8
        /// bytes): a hint for naming members the receiver does not know.
        public let label: String

        public init(identityKey: IdentityKey, role: Role, label: String) {
            self.identityKey = identityKey
            self.role = role
            self.label = label
        }

        public var isAdmin: Bool { role == .admin }
    }

    public let groupID: [UInt8]
    public let epoch: UInt32
    public let secret: SecureBytes
    public let name: String
    public let members: [Member]

    public init(groupID: [UInt8], epoch: UInt32, secret: SecureBytes, name: String, members: [Member]) throws(ProtocolError) {
        try Self.check(groupID: groupID, secret: secret, name: name, members: members.map(\.identityKey),
                       admins: members.filter(\.isAdmin).count, maxMembers: GroupLimits.maxMembers)
        for member in members where member.label.utf8.count > GroupLimits.maxLabelLength {
            throw .limitExceeded(what: "group member label (0 to 64 bytes)")
        }
        self.groupID = groupID
        self.epoch = epoch
        self.secret = secret
        self.name = name
        self.members = members
    }

    /// What every state checks of its fields, a large one's too (§18.2, §18.4).
    static func check(groupID: [UInt8], secret: SecureBytes, name: String, members: [IdentityKey], admins: Int,
                      maxMembers: Int) throws(ProtocolError) {
        guard groupID.count == SenderKeyWire.groupIDLength else { throw .malformed(what: "group id (16 bytes)") }
        guard secret.count == GroupLimits.secretLength else { throw .malformed(what: "group secret (32 bytes)") }
        guard (1...GroupLimits.maxNameLength).contains(name.utf8.count) else { throw .limitExceeded(what: "group name (1 to 64 bytes)") }
        guard (1...maxMembers).contains(members.count) else { throw .limitExceeded(what: "group members (1 to \(maxMembers))") }
        guard Set(members).count == members.count else { throw .malformed(what: "group members (a member twice)") }
        guard admins > 0 else { throw .malformed(what: "group members (no admin)") }
    }

    public func member(_ key: IdentityKey) -> Member? { members.first { $0.identityKey == key } }
    public func isAdmin(_ key: IdentityKey) -> Bool { member(key)?.isAdmin ?? false }

    /// The encoding; it contains the secret (it travels only inside the pairwise sessions).
    public var encoded: [UInt8] {
        var out = groupID
        out.appendBigEndian(epoch)
        secret.withUnsafeBytes { out.append(contentsOf: $0) }
        let nameBytes = Array(name.utf8)
        out.append(UInt8(nameBytes.count))
        out += nameBytes
        out.appendBigEndian(UInt16(members.count))
        for member in members {
            out += member.identityKey.rawRepresentation
            out.append(member.role.rawValue)
            let label = Array(member.label.utf8)
            out.append(UInt8(label.count))
            out += label
        }
        return out
    }

    /// SHA-256 of the encoding: the tie-break between two states of one epoch.
    public var digest: [UInt8] { SHA256.hash(encoded) }

    /// Whether this state replaces `current` (§18.2): a later epoch, or the
    /// same epoch with a lower digest.
    public func supersedes(_ current: GroupState) -> Bool {
        Self.supersedes(epoch: epoch, digest: digest, current: (current.epoch, current.digest))
    }

    /// §18.2's order, for either kind of state.
    static func supersedes(epoch: UInt32, digest: [UInt8], current: (epoch: UInt32, digest: [UInt8])) -> Bool {
        if epoch != current.epoch { return epoch > current.epoch }
        return digest.lexicographicallyPrecedes(current.digest)
    }

    static func decode(from reader: inout ByteReader) throws(ProtocolError) -> GroupState {
        let groupID = try reader.read(SenderKeyWire.groupIDLength)
        let epoch = try reader.u32()
        var secret = try reader.read(GroupLimits.secretLength)
        defer { ConstantTime.wipe(&secret) }
        let nameLength = Int(try reader.u8())
        guard (1...GroupLimits.maxNameLength).contains(nameLength) else { throw .malformed(what: "group name length") }
        let name = try Content.utf8(try reader.read(nameLength))
        let count = Int(try reader.u16())
        guard (1...GroupLimits.maxMembers).contains(count) else { throw .malformed(what: "group member count") }
        var members: [Member] = []
        members.reserveCapacity(count)
        for _ in 0..<count {
            let key = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
            let roleByte = try reader.u8()
            guard let role = Role(rawValue: roleByte) else { throw .malformed(what: "group member role") }
            let labelLength = Int(try reader.u8())
            guard labelLength <= GroupLimits.maxLabelLength else { throw .malformed(what: "group member label length") }
            let label = labelLength == 0 ? "" : try Content.utf8(try reader.read(labelLength))
            members.append(Member(identityKey: key, role: role, label: label))
        }
        return try GroupState(groupID: groupID, epoch: epoch, secret: SecureBytes(copying: secret), name: name, members: members)
    }

    public static func decode(_ bytes: [UInt8]) throws(ProtocolError) -> GroupState {
        var reader = ByteReader(bytes, what: "group state")
        let state = try decode(from: &reader)
        try reader.finish()
        return state
    }

    /// The key of this state's group envelopes:
    /// HKDF(salt = group id, ikm = secret, info = "hush/v1/group-envelope" 0x00, 32).
    public func envelopeKey() throws(ProtocolError) -> SecureBytes {
        try Self.envelopeKey(secret: secret, groupID: groupID)
    }

    /// §18.3's envelope key, for either kind of state.
    static func envelopeKey(secret: SecureBytes, groupID: [UInt8]) throws(ProtocolError) -> SecureBytes {
        do {
            return try HKDF.deriveKey(inputKeyMaterial: secret, salt: groupID, info: Labels.groupEnvelope, length: 32)
        } catch {
            throw .crypto(error)
        }
    }

    public var description: String {
        "GroupState(group \(Hex.encode(groupID)), epoch \(epoch), \(members.count) members, secret redacted)"
    }
}

/// Bounds of groups; receivers refuse anything beyond them.
public enum GroupLimits {
    public static let maxMembers = 256
    public static let maxNameLength = 64
    public static let maxLabelLength = 64
    public static let secretLength = 32
    /// How many epochs a member keeps the states and chains of (§18.2): the
    /// current one and the seven before it. A member who missed changes
    /// while away seals under the state it last had until it catches up;
    /// what it sends meanwhile still opens for everyone who moved on, as
    /// long as it is fewer than this many changes behind.
    public static let keptEpochs: UInt32 = 8

    /// The oldest epoch kept beside `current` (`keptEpochs`).
    public static func oldestKeptEpoch(current: UInt32) -> UInt32 {
        current >= keptEpochs ? current - (keptEpochs - 1) : 0
    }
}
