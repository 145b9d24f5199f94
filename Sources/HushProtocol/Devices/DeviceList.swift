import HushCrypto

/// An account's signed list of its devices (docs/PROTOCOL.md §20.2):
///
///     body = 0x01 || account key (32) || counter (u64) || created at (u64) || signer (16)
///            || count (u8: 0…128) || count × entry, sorted by device id
///     list = body || account signature (64) || signer signature (64)
///
/// The account signature is the account identity key's over
/// "hush/v1/device-list" 0x00 || body: the address encodes that key, so a
/// contact needs nothing but the address to check a list. The signer
/// signature is the signing device's own key's over
/// "hush/v1/device-list-signer" 0x00 || body: every device holds the account
/// key (there is no primary), so a revoked device still holds it; requiring a
/// device that is active in the list a verifier already holds to sign as well
/// is what keeps a revoked device from writing itself back (§20.3 step 9).
///
/// A value of this type was decoded and checked by every rule that needs no
/// earlier list (§20.3 steps 1–8); `encoded` is exactly the bytes that were
/// checked. Which lists follow which is `DeviceListVerifier`'s.
public struct DeviceList: Sendable, Equatable {
    public let account: IdentityKey
    /// Strictly increasing from one list of the account to the next; at least 1.
    public let counter: UInt64
    /// Milliseconds since 1970 on the signing device's clock (informational).
    public let createdAt: UInt64
    /// The device that signed it.
    public let signer: DeviceID
    /// Sorted by id, no id twice.
    public let entries: [DeviceListEntry]
    public let encoded: [UInt8]

    public var activeDevices: [DeviceListEntry] { entries.filter(\.isActive) }

    public func entry(_ id: DeviceID) -> DeviceListEntry? { entries.first { $0.id == id } }

    /// The device that keeps the account key at the relay (§20.13), when the list marks one.
    public var accountKeyDevice: DeviceListEntry? { entries.first(where: \.keepsAccountKey) }

    /// Whether the device that kept the account key is revoked (§20.14): the
    /// account key is retired, and nothing is sealed to it or accepted from it.
    public var retiresAccountKey: Bool { accountKeyDevice.map { !$0.isActive } ?? false }

    /// Signs a list of `entries` (in any order: they are sorted) with the
    /// account key and the signing device's key, and checks it as a contact
    /// would, so no list a contact must refuse leaves this function.
    public static func sign(account: IdentityKeyPair, counter: UInt64, createdAt: UInt64, signer: Ed25519.PrivateKey,
                            entries: [DeviceListEntry]) throws(ProtocolError) -> DeviceList {
        guard entries.count <= DeviceLimits.maxEntries else { throw .deviceListRefused(.tooManyDevices) }
        let body = encodeBody(account: account.publicKey, counter: counter, createdAt: createdAt,
                              signer: DeviceID(deviceKey: signer.publicKey), entries: entries.sorted { $0.id < $1.id })
        let list = try decode(signedBytes(body: body, account: account, signer: signer), account: account.publicKey)
        guard list.counter > 0 else { throw .deviceListRefused(.notNewer) }
        return list
    }

    /// The body of a list, written as given (unsorted, unchecked): for
    /// `sign`, and for vectors that must build lists a contact refuses.
    @_spi(Vectors)
    public static func encodeBody(account: IdentityKey, counter: UInt64, createdAt: UInt64, signer: DeviceID,
                                  entries: [DeviceListEntry]) -> [UInt8] {
        var out: [UInt8] = [DeviceLimits.version]
        out += account.rawRepresentation
        out.appendBigEndian(counter)
        out.appendBigEndian(createdAt)
        out += signer.bytes
        out.append(UInt8(truncatingIfNeeded: entries.count))
        for entry in entries { out += entry.encoded }
        return out
    }

    /// `body` with both signatures appended.
    @_spi(Vectors)
    public static func signedBytes(body: [UInt8], account: IdentityKeyPair, signer: Ed25519.PrivateKey) -> [UInt8] {
        body + account.signingKey.signature(for: Labels.deviceList + body) + signer.signature(for: Labels.deviceListSigner + body)
    }

    /// Decodes `bytes` as a list of `account` and applies §20.3 steps 1–8,
    /// in order; the first rule broken is thrown as `deviceListRefused`.
    public static func decode(_ bytes: [UInt8], account: IdentityKey) throws(ProtocolError) -> DeviceList {
        // 1. Version.
        guard let version = bytes.first, version == DeviceLimits.version else { throw .deviceListRefused(.unsupportedVersion) }
        // 2. Length, before anything is read.
        guard bytes.count >= DeviceLimits.minimumListLength else { throw .deviceListRefused(.truncated) }
        guard bytes.count <= DeviceLimits.maximumListLength else { throw .deviceListRefused(.tooLong) }
        // 3. Whose list.
        guard ConstantTime.equals(bytes[1..<33], account.rawRepresentation) else { throw .deviceListRefused(.wrongAccount) }
        // 4. The account signature: the last 128 bytes are the two signatures, everything before is the body.
        let bodyEnd = bytes.count - 2 * DeviceLimits.signatureLength
        let body = Array(bytes[..<bodyEnd])
        let signerSignature = Array(bytes[(bodyEnd + DeviceLimits.signatureLength)...])
        guard account.signingKey.isValidSignature(bytes[bodyEnd..<(bodyEnd + DeviceLimits.signatureLength)], for: Labels.deviceList + body) else {
            throw .deviceListRefused(.badSignature)
        }
        // 5. The body, field by field.
        var reader = ByteReader(body, what: "device list")
        _ = try read(&reader, 1 + 32)
        let counter = try readU64(&reader)
        let createdAt = try readU64(&reader)
        let signer = try DeviceID(bytes: try read(&reader, DeviceID.length))
        let count = Int(try read(&reader, 1)[0])
        guard count <= DeviceLimits.maxEntries else { throw .deviceListRefused(.tooManyDevices) }
        var entries: [DeviceListEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let entry = try readEntry(&reader, account: account, after: entries.last?.id)
            entries.append(entry)
        }
        guard reader.remaining == 0 else { throw .deviceListRefused(.trailingBytes) }
        // 6. How many are active.
        let active = entries.filter(\.isActive).count
        guard active <= DeviceLimits.maxActiveDevices else { throw .deviceListRefused(.tooManyDevices) }
        guard active > 0 else { throw .deviceListRefused(.noActiveDevice) }
        guard entries.filter(\.keepsAccountKey).count <= 1 else { throw .deviceListRefused(.accountKeyTwice) }
        // 7. Every device's proof, in list order.
        for entry in entries { try entry.verifyProof(account: account) }
        // 8. The signing device: listed, and its signature.
        guard let signing = entries.first(where: { $0.id == signer }) else { throw .deviceListRefused(.unknownSigner) }
        guard signing.key.isValidSignature(signerSignature, for: Labels.deviceListSigner + body) else {
            throw .deviceListRefused(.badSignerSignature)
        }
        return DeviceList(account: account, counter: counter, createdAt: createdAt, signer: signer, entries: entries, encoded: bytes)
    }

    /// One entry, checked in the order its fields are read (§20.3 step 5).
    private static func readEntry(_ reader: inout ByteReader, account: IdentityKey, after previous: DeviceID?) throws(ProtocolError) -> DeviceListEntry {
        let id = try DeviceID(bytes: try read(&reader, DeviceID.length))
        let key: Ed25519.PublicKey
        do { key = try Ed25519.PublicKey(rawRepresentation: try read(&reader, 32)) } catch { throw .deviceListRefused(.truncated) }
        guard (try? key.agreementKey()) != nil, !ConstantTime.equals(key.rawRepresentation, account.rawRepresentation) else {
            throw .deviceListRefused(.badDeviceKey)
        }
        guard ConstantTime.equals(id.bytes, DeviceID(deviceKey: key).bytes) else { throw .deviceListRefused(.badDeviceID) }
        if let previous {
            guard id != previous else { throw .deviceListRefused(.duplicateDevice) }
            guard previous < id else { throw .deviceListRefused(.notCanonical) }
        }
        let addedAt = try readU64(&reader)
        let stateByte = try read(&reader, 1)[0]
        guard let state = DeviceListEntry.State(rawValue: stateByte & ~DeviceListEntry.accountKeyBit) else { throw .deviceListRefused(.badState) }
        let revokedAt = try readU64(&reader)
        try DeviceListEntry.checkState(state, addedAt: addedAt, revokedAt: revokedAt)
        let nameLength = Int(try read(&reader, 1)[0])
        guard nameLength <= DeviceLimits.maxNameLength else { throw .deviceListRefused(.nameTooLong) }
        let name = try DeviceName.check(try read(&reader, nameLength))
        let proof = try read(&reader, DeviceLimits.signatureLength)
        return DeviceListEntry(unchecked: id, key: key, addedAt: addedAt, state: state, revokedAt: revokedAt,
                               keepsAccountKey: stateByte & DeviceListEntry.accountKeyBit != 0, name: name, proof: proof)
    }

    /// Reads that report a short body as the list's `truncated`.
    private static func read(_ reader: inout ByteReader, _ count: Int) throws(ProtocolError) -> [UInt8] {
        guard reader.remaining >= count else { throw .deviceListRefused(.truncated) }
        return try reader.read(count)
    }

    private static func readU64(_ reader: inout ByteReader) throws(ProtocolError) -> UInt64 {
        guard reader.remaining >= 8 else { throw .deviceListRefused(.truncated) }
        return try reader.u64()
    }

    private init(account: IdentityKey, counter: UInt64, createdAt: UInt64, signer: DeviceID, entries: [DeviceListEntry], encoded: [UInt8]) {
        self.account = account
        self.counter = counter
        self.createdAt = createdAt
        self.signer = signer
        self.entries = entries
        self.encoded = encoded
    }

    /// The fingerprint a contact compares (§20.4).
    public var fingerprint: DeviceListFingerprint { DeviceListFingerprint(self) }
}

extension DeviceList: CustomStringConvertible {
    public var description: String {
        "DeviceList(account \(Hex.encode(account.rawRepresentation)), counter \(counter), \(activeDevices.count) active of \(entries.count))"
    }
}
