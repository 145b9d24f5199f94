/// What one device of an account tells its other devices about one contact
/// (docs/PROTOCOL.md §20.16): whether they are accepted or blocked (or were
/// removed), whether the user verified their safety number, and the name
/// the user gave them, each with when it last changed. Carried by the
/// contacts content (`0x17`), which only a device of the receiver's own
/// account may send.
///
///     identity key (32) || state at (8) || state (1) || verified at (8) || verified (1)
///                       || name at (8) || name length (2: 0…256) || name (UTF-8)
///
/// The times order changes of one field of one contact: a receiver keeps
/// the newest of each (last writer wins, field by field), so devices that
/// changed one contact while apart converge, and a verification made on
/// one device survives a block made on another.
public struct ContactRecord: Sendable, Equatable {
    public enum State: UInt8, Sendable, CaseIterable {
        /// The contact was removed, with its conversation.
        case removed = 0x00
        case accepted = 0x01
        case blocked = 0x02
    }

    public let identityKey: IdentityKey
    /// When the state last changed (ms, the changing device's clock; at most 2^63 − 1).
    public let stateChangedAt: UInt64
    public let state: State
    /// When the verification last changed (0 for a removed contact).
    public let verifiedChangedAt: UInt64
    /// Whether the user compared safety numbers with this contact's `identityKey`.
    public let verified: Bool
    /// When the name last changed (0 for a removed contact).
    public let nameChangedAt: UInt64
    /// The user's name for the contact: 1 to 256 UTF-8 bytes; empty
    /// exactly when the contact was removed.
    public let name: String

    /// The longest name a record carries, in UTF-8 bytes (64 characters of up to 4 bytes).
    public static let maxNameLength = 256
    /// The most records one contacts content carries: 200 of the longest
    /// (316 bytes) and the content's header fit its 65,536 bytes (§8).
    public static let maxPerContent = 200
    /// The latest time a record carries (times are signed 64-bit milliseconds where they are kept).
    public static let latestTime = UInt64(Int64.max)

    public init(identityKey: IdentityKey, stateChangedAt: UInt64, state: State, verifiedChangedAt: UInt64 = 0, verified: Bool = false,
                nameChangedAt: UInt64 = 0, name: String = "") throws(ProtocolError) {
        guard stateChangedAt <= Self.latestTime, verifiedChangedAt <= Self.latestTime, nameChangedAt <= Self.latestTime else {
            throw .malformed(what: "contact record time")
        }
        // A contact's key must be usable for a session (§4.1 step 13), or no device could ever write to it.
        do { _ = try identityKey.agreementKey() } catch { throw .malformed(what: "contact record identity key") }
        if state == .removed {
            guard name.isEmpty, !verified, verifiedChangedAt == 0, nameChangedAt == 0 else { throw .malformed(what: "removed contact record") }
        } else {
            guard (1...Self.maxNameLength).contains(name.utf8.count) else { throw .malformed(what: "contact record name") }
        }
        self.identityKey = identityKey
        self.stateChangedAt = stateChangedAt
        self.state = state
        self.verifiedChangedAt = verifiedChangedAt
        self.verified = verified
        self.nameChangedAt = nameChangedAt
        self.name = name
    }

    /// `name` cut to at most `maxNameLength` UTF-8 bytes, at a character
    /// boundary: a local name may be longer than a record carries.
    public static func fitting(_ name: String) -> String {
        guard name.utf8.count > maxNameLength else { return name }
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= maxNameLength else { break }
            cut.append(character)
        }
        return cut
    }

    func encode(into out: inout [UInt8]) {
        out += identityKey.rawRepresentation
        out.appendBigEndian(stateChangedAt)
        out.append(state.rawValue)
        out.appendBigEndian(verifiedChangedAt)
        out.append(verified ? 1 : 0)
        out.appendBigEndian(nameChangedAt)
        let utf8 = Array(name.utf8)
        out.appendBigEndian(UInt16(utf8.count))
        out += utf8
    }

    static func decode(from reader: inout ByteReader) throws(ProtocolError) -> ContactRecord {
        let key = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
        let stateChangedAt = try reader.u64()
        guard let state = State(rawValue: try reader.u8()) else { throw .malformed(what: "contact record state") }
        let verifiedChangedAt = try reader.u64()
        let flag = try reader.u8()
        guard flag <= 1 else { throw .malformed(what: "contact record verified flag") }
        let nameChangedAt = try reader.u64()
        let length = Int(try reader.u16())
        guard length <= maxNameLength else { throw .malformed(what: "contact record name length") }
        let name = length == 0 ? "" : try Content.utf8(try reader.read(length))
        return try ContactRecord(identityKey: key, stateChangedAt: stateChangedAt, state: state, verifiedChangedAt: verifiedChangedAt,
                                 verified: flag == 1, nameChangedAt: nameChangedAt, name: name)
    }

    /// Encodes a contacts content's body: count (2: 1…200) || records, each
    /// contact at most once.
    static func encode(_ records: [ContactRecord], into out: inout [UInt8]) throws(ProtocolError) {
        guard (1...maxPerContent).contains(records.count) else { throw .limitExceeded(what: "contact records") }
        guard Set(records.map(\.identityKey.rawRepresentation)).count == records.count else {
            throw .malformed(what: "contact records naming one contact twice")
        }
        out.appendBigEndian(UInt16(records.count))
        for record in records { record.encode(into: &out) }
    }

    static func decodeAll(from reader: inout ByteReader) throws(ProtocolError) -> [ContactRecord] {
        let count = Int(try reader.u16())
        guard (1...maxPerContent).contains(count) else { throw .malformed(what: "contact record count") }
        var records: [ContactRecord] = []
        var seen: Set<[UInt8]> = []
        for _ in 0..<count {
            let record = try decode(from: &reader)
            guard seen.insert(record.identityKey.rawRepresentation).inserted else {
                throw .malformed(what: "contact records naming one contact twice")
            }
            records.append(record)
        }
        return records
    }
}
