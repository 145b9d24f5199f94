import HushCrypto

/// One device of an account's device list (docs/PROTOCOL.md §20.2):
///
///     device id (16) || device key (32) || added at (u64) || state (u8) || revoked at (u64)
///     || name length (u8: 1…64) || name (UTF-8) || proof (64)
///
/// The device key is the device's own Ed25519 key (its X25519 key is the
/// birational map of it, as for an identity, §3). The proof is the device's
/// signature over "hush/v1/device-proof" 0x00 || account key || device key:
/// it shows the device holds its key and agreed to join this account, so no
/// list can claim a key someone else holds. It covers nothing that changes
/// (name, state), so a device can be renamed or revoked without its key —
/// a lost device must still be revocable.
///
/// The state byte's high bit (`0x80`) marks the one device that keeps the
/// account key at the relay (§20.13): its sessions, prekeys and mailbox are
/// the account key's, so contacts' account-key sessions stand for it, and
/// its revocation retires the account key (§20.14).
public struct DeviceListEntry: Sendable, Equatable {
    public enum State: UInt8, Sendable {
        case active = 0x01
        case revoked = 0x02
    }

    /// The state byte's bit for the device that keeps the account key.
    static let accountKeyBit: UInt8 = 0x80

    public let id: DeviceID
    public let key: Ed25519.PublicKey
    /// Milliseconds since 1970 when the device was linked, on the linking device's clock.
    public let addedAt: UInt64
    public let state: State
    /// Milliseconds since 1970 when it was revoked; 0 while active.
    public let revokedAt: UInt64
    /// Whether this is the device whose key at the relay is the account key
    /// (§20.13): at most one per list, and once marked it stays marked.
    public let keepsAccountKey: Bool
    /// What the account calls the device. Untrusted text for contacts: sanitise it before showing.
    public let name: String
    public let proof: [UInt8]

    /// An active entry for the device whose key is `device`, joining `account`.
    public static func linking(_ device: Ed25519.PrivateKey, to account: IdentityKey, name: String,
                               addedAt: UInt64) throws(ProtocolError) -> DeviceListEntry {
        let entry = DeviceListEntry(unchecked: DeviceID(deviceKey: device.publicKey), key: device.publicKey, addedAt: addedAt,
                                    state: .active, revokedAt: 0, keepsAccountKey: false, name: name,
                                    proof: device.signature(for: proofTranscript(account: account, deviceKey: device.publicKey)))
        try entry.checkFields(account: account)
        return entry
    }

    /// An entry as written, checked only when a list is decoded. For vectors
    /// that must build refused lists, and for the decoder itself.
    @_spi(Vectors)
    public init(unchecked id: DeviceID, key: Ed25519.PublicKey, addedAt: UInt64, state: State, revokedAt: UInt64,
                keepsAccountKey: Bool = false, name: String, proof: [UInt8]) {
        self.id = id
        self.key = key
        self.addedAt = addedAt
        self.state = state
        self.revokedAt = revokedAt
        self.keepsAccountKey = keepsAccountKey
        self.name = name
        self.proof = proof
    }

    /// This device revoked at `time` (it stays in every later list, §20.2).
    public func revoked(at time: UInt64) -> DeviceListEntry {
        DeviceListEntry(unchecked: id, key: key, addedAt: addedAt, state: .revoked, revokedAt: time, keepsAccountKey: keepsAccountKey,
                        name: name, proof: proof)
    }

    /// This device marked as the one that keeps the account key at the relay (§20.13).
    public func keepingAccountKey() -> DeviceListEntry {
        DeviceListEntry(unchecked: id, key: key, addedAt: addedAt, state: state, revokedAt: revokedAt, keepsAccountKey: true,
                        name: name, proof: proof)
    }

    /// This device under another name.
    public func renamed(_ newName: String) throws(ProtocolError) -> DeviceListEntry {
        _ = try DeviceName.check(Array(newName.utf8))
        return DeviceListEntry(unchecked: id, key: key, addedAt: addedAt, state: state, revokedAt: revokedAt,
                               keepsAccountKey: keepsAccountKey, name: newName, proof: proof)
    }

    public var isActive: Bool { state == .active }

    /// "hush/v1/device-proof" 0x00 || account key || device key: what a device signs to join an account.
    public static func proofTranscript(account: IdentityKey, deviceKey: Ed25519.PublicKey) -> [UInt8] {
        Labels.deviceProof + account.rawRepresentation + deviceKey.rawRepresentation
    }

    public var encoded: [UInt8] {
        var out = id.bytes
        out += key.rawRepresentation
        out.appendBigEndian(addedAt)
        out.append(state.rawValue | (keepsAccountKey ? Self.accountKeyBit : 0))
        out.appendBigEndian(revokedAt)
        let nameBytes = Array(name.utf8)
        out.append(UInt8(truncatingIfNeeded: nameBytes.count))
        out += nameBytes
        out += proof
        return out
    }

    /// The checks of §20.3 step 5 that concern this entry alone, in order
    /// (its place in the list is the list's check).
    func checkFields(account: IdentityKey) throws(ProtocolError) {
        guard (try? key.agreementKey()) != nil, !ConstantTime.equals(key.rawRepresentation, account.rawRepresentation) else {
            throw .deviceListRefused(.badDeviceKey)
        }
        guard ConstantTime.equals(id.bytes, DeviceID(deviceKey: key).bytes) else { throw .deviceListRefused(.badDeviceID) }
        try Self.checkState(state, addedAt: addedAt, revokedAt: revokedAt)
        _ = try DeviceName.check(Array(name.utf8))
    }

    /// Active: revoked at is 0. Revoked: revoked at is not before added at.
    static func checkState(_ state: State, addedAt: UInt64, revokedAt: UInt64) throws(ProtocolError) {
        switch state {
        case .active: guard revokedAt == 0 else { throw .deviceListRefused(.badState) }
        case .revoked: guard revokedAt >= addedAt, revokedAt > 0 else { throw .deviceListRefused(.badState) }
        }
    }

    /// Throws unless `proof` is this device key's signature for `account`.
    func verifyProof(account: IdentityKey) throws(ProtocolError) {
        guard key.isValidSignature(proof, for: Self.proofTranscript(account: account, deviceKey: key)) else {
            throw .deviceListRefused(.badProof)
        }
    }
}

extension DeviceListEntry: CustomStringConvertible {
    public var description: String {
        "DeviceListEntry(\(id), \(state)\(keepsAccountKey ? ", keeps the account key" : ""), added \(addedAt))"
    }
}
