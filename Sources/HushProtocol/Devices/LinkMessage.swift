import HushCrypto

/// The plaintexts of a link's channel messages (docs/PROTOCOL.md §20.6),
/// each `type (u8) || body`, sealed by `LinkChannelKeys`.
public enum LinkMessage: Sendable {
    /// existing → new, n = 0: the account's identity key.
    case account(IdentityKey)
    /// new → existing, n = 0: the new device's key, its proof for the account, its name.
    case device(key: Ed25519.PublicKey, proof: [UInt8], name: String)
    /// existing → new, n = 1: the account seed, the recovery key and the
    /// counter of the list whose revocation made it (0: the key the account
    /// was made with, §20.14), the new list.
    case admit(accountSeed: SecureBytes, recoveryKey: SecureBytes, recoveryKeyCounter: UInt64, list: [UInt8])
    /// existing → new, n = 2, 3, …: where part `index` (from 0) of the
    /// history archive is, its length and SHA-256.
    case archivePart(index: UInt32, blobID: String, length: UInt64, sha256: [UInt8])
    /// existing → new, after the last part: how many parts and bytes the archive has.
    case archiveEnd(parts: UInt32, length: UInt64)
    /// new → existing, n = 1, 2, …: part `index` arrived and checked; its blob may go.
    case partReceived(index: UInt32)
    /// Either direction: the link ends (declined by the user, or that side failed).
    case declined

    public static let accountType: UInt8 = 0x03
    public static let deviceType: UInt8 = 0x04
    public static let admitType: UInt8 = 0x05
    public static let archivePartType: UInt8 = 0x06
    public static let archiveEndType: UInt8 = 0x07
    public static let partReceivedType: UInt8 = 0x08
    public static let declinedType: UInt8 = 0x7F

    /// `type || body`. A secret when it is an `admit`: wipe it after sealing.
    public var encoded: [UInt8] {
        switch self {
        case let .account(key):
            return [Self.accountType] + key.rawRepresentation
        case let .device(key, proof, name):
            let nameBytes = Array(name.utf8)
            return [Self.deviceType] + key.rawRepresentation + proof + [UInt8(truncatingIfNeeded: nameBytes.count)] + nameBytes
        case let .admit(seed, recoveryKey, counter, list):
            var out = [Self.admitType] + seed.copyBytes() + recoveryKey.copyBytes()
            out.appendBigEndian(counter)
            out += [UInt8(truncatingIfNeeded: list.count >> 8), UInt8(truncatingIfNeeded: list.count)]
            return out + list
        case let .archivePart(index, blobID, length, sha256):
            let id = Array(blobID.utf8)
            var out = [Self.archivePartType]
            out.appendBigEndian(index)
            out += [UInt8(truncatingIfNeeded: id.count)] + id
            out.appendBigEndian(length)
            return out + sha256
        case let .archiveEnd(parts, length):
            var out = [Self.archiveEndType]
            out.appendBigEndian(parts)
            out.appendBigEndian(length)
            return out
        case let .partReceived(index):
            var out = [Self.partReceivedType]
            out.appendBigEndian(index)
            return out
        case .declined:
            return [Self.declinedType]
        }
    }

    /// Reads a channel message's plaintext; anything that is not exactly one
    /// of the forms above is `malformed` (it was sealed by a holder of the
    /// channel key, so it is a broken peer, not noise: the link ends).
    public init(decoding bytes: [UInt8]) throws(ProtocolError) {
        guard let type = bytes.first else { throw .malformed(what: "empty link message") }
        let body = Array(bytes.dropFirst())
        switch type {
        case Self.accountType:
            guard body.count == 32 else { throw .malformed(what: "link account message") }
            do { self = .account(try IdentityKey(rawRepresentation: body)) } catch { throw .malformed(what: "link account key") }
        case Self.deviceType:
            guard body.count > 32 + 64 + 1, body.count == 32 + 64 + 1 + Int(body[96]) else { throw .malformed(what: "link device message") }
            let key: Ed25519.PublicKey
            do { key = try Ed25519.PublicKey(rawRepresentation: Array(body[0..<32])) } catch { throw .deviceListRefused(.badDeviceKey) }
            guard let name = String(validating: body[97...], as: UTF8.self) else { throw .deviceListRefused(.badName) }
            self = .device(key: key, proof: Array(body[32..<96]), name: name)
        case Self.admitType:
            guard body.count >= 74 else { throw .malformed(what: "link admit message") }
            let counter: UInt64 = Self.bigEndian(body[64..<72])
            guard counter <= UInt64(Int64.max) else { throw .malformed(what: "link admit message's recovery key counter") }
            let length = Int(body[72]) << 8 | Int(body[73])
            guard body.count == 74 + length else { throw .malformed(what: "link admit message") }
            self = .admit(accountSeed: SecureBytes(copying: body[0..<32], storage: .guarded),
                          recoveryKey: SecureBytes(copying: body[32..<64], storage: .guarded), recoveryKeyCounter: counter,
                          list: Array(body[74...]))
        case Self.archivePartType:
            guard body.count > 4, case let idLength = Int(body[4]), (1...64).contains(idLength), body.count == 5 + idLength + 8 + 32,
                  let id = String(validating: body[5..<(5 + idLength)], as: UTF8.self) else {
                throw .malformed(what: "link archive part message")
            }
            self = .archivePart(index: Self.bigEndian(body[0..<4]), blobID: id, length: Self.bigEndian(body[(5 + idLength)..<(13 + idLength)]),
                                sha256: Array(body[(13 + idLength)...]))
        case Self.archiveEndType:
            guard body.count == 12 else { throw .malformed(what: "link archive end message") }
            self = .archiveEnd(parts: Self.bigEndian(body[0..<4]), length: Self.bigEndian(body[4..<12]))
        case Self.partReceivedType:
            guard body.count == 4 else { throw .malformed(what: "link part received message") }
            self = .partReceived(index: Self.bigEndian(body[0..<4]))
        case Self.declinedType:
            guard body.isEmpty else { throw .malformed(what: "link declined message") }
            self = .declined
        default:
            throw .malformed(what: "link message of unknown type \(type)")
        }
    }
}

extension LinkMessage {
    private static func bigEndian<T: FixedWidthInteger & UnsignedInteger>(_ bytes: ArraySlice<UInt8>) -> T {
        bytes.reduce(T(0)) { $0 << 8 | T($1) }
    }
}

extension DeviceListEntry {
    /// The active entry of a device that asked to join `account` in a link
    /// (§20.6 step 5): checked as §20.3 checks an entry (a key with an X25519
    /// image other than the account's, the name) and its proof verified, so
    /// nothing is signed for a key its sender does not hold.
    public static func joining(key: Ed25519.PublicKey, proof: [UInt8], name: String, account: IdentityKey,
                               addedAt: UInt64) throws(ProtocolError) -> DeviceListEntry {
        guard proof.count == Ed25519.signatureLength else { throw .deviceListRefused(.badProof) }
        let entry = DeviceListEntry(unchecked: DeviceID(deviceKey: key), key: key, addedAt: addedAt, state: .active, revokedAt: 0,
                                    name: name, proof: proof)
        try entry.checkFields(account: account)
        try entry.verifyProof(account: account)
        return entry
    }
}
