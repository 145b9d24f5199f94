import HushCrypto

/// An account's directory at the relay (docs/PROTOCOL.md §20.9): where its
/// current device list waits for whoever starts a conversation from the
/// address. The relay files it under a blinded key (`name`) that it cannot
/// link to the address, and keeps it sealed under a key that only knowers of
/// the address derive:
///
///     h      = SHA-512("hush/v1/directory-blind" 0x00 || IK) mod ℓ
///     name   = h · IK                                                  -- BK
///     key    = HKDF(salt = none, ikm = IK, info = "hush/v1/directory-key" 0x00, 32)
///     record = 0x01 || nonce (24) || XChaCha20-Poly1305(key, nonce, list || 0x80 || 0x00…, AD = 0x01 || BK)
///
/// Only the account writes it: a write is signed with the blinded scalar
/// (`Writer`), an Ed25519 signature the relay checks under `name`.
public struct DeviceDirectory: Sendable, CustomStringConvertible {
    public static let recordVersion: UInt8 = 0x01
    /// The padded list is a whole number of these (its size tells the relay
    /// the list's within 1 KiB).
    public static let paddingBlock = 1024
    public static let minimumRecordLength = recordLength(listLength: DeviceLimits.minimumListLength)
    public static let maximumRecordLength = recordLength(listLength: DeviceLimits.maximumListLength)

    public let account: IdentityKey
    /// BK: the directory's name at the relay.
    public let name: Ed25519.PublicKey
    let key: SecureBytes

    public init(account: IdentityKey) throws(ProtocolError) {
        do {
            name = try Ed25519Blinding.blindedKey(label: Labels.directoryBlind, publicKey: account.signingKey)
            key = try HKDF.deriveKey(inputKeyMaterial: account.rawRepresentation, salt: [UInt8](), info: Labels.directoryKey, length: 32)
        } catch {
            throw .crypto(error)
        }
        self.account = account
    }

    /// The name is public (the relay sees it); the key is not shown.
    public var description: String { "DeviceDirectory(name \(Hex.encode(name.rawRepresentation)), key redacted)" }

    /// The record key, for vectors.
    @_spi(Vectors) public var recordKey: SecureBytes { key }

    static func recordLength(listLength: Int) -> Int {
        1 + XChaCha20Poly1305.nonceLength + paddedLength(listLength) + XChaCha20Poly1305.tagLength
    }

    /// The list and its 0x80 marker, rounded up to whole blocks.
    static func paddedLength(_ listLength: Int) -> Int {
        (listLength + 1 + paddingBlock - 1) / paddingBlock * paddingBlock
    }

    /// `list` sealed as a record under a fresh nonce.
    public func seal(_ list: DeviceList, using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> [UInt8] {
        try seal(list, nonce: random.bytes(XChaCha20Poly1305.nonceLength))
    }

    /// With a given nonce (vectors; `seal` draws it).
    @_spi(Vectors)
    public func seal(_ list: DeviceList, nonce: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard ConstantTime.equals(list.account.rawRepresentation, account.rawRepresentation) else {
            throw .deviceListRefused(.wrongAccount)
        }
        var padded = list.encoded
        padded.append(0x80)
        padded.append(contentsOf: [UInt8](repeating: 0, count: Self.paddedLength(list.encoded.count) - padded.count))
        return try sealPadded(padded, nonce: nonce)
    }

    /// Seals bytes already padded (or, for vectors, padded wrongly, or another account's list).
    @_spi(Vectors)
    public func sealPadded(_ padded: [UInt8], nonce: [UInt8]) throws(ProtocolError) -> [UInt8] {
        let head = [Self.recordVersion] + nonce
        do {
            return head + (try XChaCha20Poly1305.seal(padded, key: key, nonce: nonce, associatedData: [Self.recordVersion] + name.rawRepresentation))
        } catch {
            throw .crypto(error)
        }
    }

    /// The list a record holds, checked as §20.9 says: it opens, is padded
    /// right, decodes and verifies as a list of this account (§20.3 steps
    /// 1–8), and carries `counter`, the one the relay gave with it. Whether
    /// it may replace a list already held is `DeviceListVerifier`'s.
    public func open(_ record: [UInt8], counter: UInt64) throws(ProtocolError) -> DeviceList {
        guard let version = record.first else { throw .directoryRecordRefused(.wrongLength) }
        guard version == Self.recordVersion else { throw .directoryRecordRefused(.unsupportedVersion) }
        guard (Self.minimumRecordLength...Self.maximumRecordLength).contains(record.count),
              (record.count - Self.minimumRecordLength) % Self.paddingBlock == 0 else {
            throw .directoryRecordRefused(.wrongLength)
        }
        let nonce = Array(record[1..<(1 + XChaCha20Poly1305.nonceLength)])
        let padded: [UInt8]
        do {
            padded = try XChaCha20Poly1305.open(record[(1 + nonce.count)...], key: key, nonce: nonce,
                                                associatedData: [Self.recordVersion] + name.rawRepresentation)
        } catch {
            throw .directoryRecordRefused(.notOpened)
        }
        guard let marker = padded.lastIndex(where: { $0 != 0 }), padded[marker] == 0x80,
              Self.paddedLength(marker) == padded.count else {
            throw .directoryRecordRefused(.badPadding)
        }
        let list = try DeviceList.decode(Array(padded[..<marker]), account: account)
        guard list.counter == counter else { throw .directoryRecordRefused(.counterMismatch) }
        return list
    }

    /// What a write signs: "hush/v1/directory-put" 0x00 || BK || counter || record.
    public static func putMessage(name: Ed25519.PublicKey, counter: UInt64, record: [UInt8]) -> [UInt8] {
        var message = Labels.directoryPut + name.rawRepresentation
        message.appendBigEndian(counter)
        return message + record
    }

    /// The relay's check of a write to the directory `name`: an ordinary
    /// (strict) Ed25519 signature under the blinded key.
    public static func isValidPut(signature: [UInt8], name: Ed25519.PublicKey, counter: UInt64, record: [UInt8]) -> Bool {
        name.isValidSignature(signature, for: putMessage(name: name, counter: counter, record: record))
    }

    /// The account's side: signs writes with the blinded scalar, which only
    /// the account seed gives (every device of the account holds it).
    public struct Writer: Sendable {
        public let directory: DeviceDirectory
        let signingKey: Ed25519Blinding.SigningKey

        public init(account: IdentityKeyPair) throws(ProtocolError) {
            directory = try DeviceDirectory(account: account.publicKey)
            do {
                signingKey = try Ed25519Blinding.SigningKey(label: Labels.directoryBlind, prefixLabel: Labels.directoryBlindPrefix,
                                                            privateKey: account.signingKey)
            } catch {
                throw .crypto(error)
            }
        }

        /// The signature of a write of `record` (the list's `counter`).
        public func signPut(counter: UInt64, record: [UInt8]) -> [UInt8] {
            signingKey.signature(for: DeviceDirectory.putMessage(name: directory.name, counter: counter, record: record))
        }
    }
}
