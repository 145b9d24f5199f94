import HushCrypto

/// The keys of one link (docs/PROTOCOL.md §20.6), from the link code's secret `S`:
///
///     link id  = HKDF(salt = none, ikm = S, info = "hush/v1/link-id" 0x00, 16)    -- the link's mailbox at the relay
///     auth key = HKDF(salt = none, ikm = S, info = "hush/v1/link-auth" 0x00, 32)  -- MACs the hello and the welcome
///
/// The new device sends a hello (its ephemeral X25519 key), the existing
/// device a welcome (its own); both MACed, so only holders of the code take
/// part. The channel keys come from the two ephemerals' agreement *and* `S`
/// (`channel(…)`), so someone who learns the code after the link cannot
/// read what it carried.
public struct LinkKeys: Sendable, CustomStringConvertible {
    public static let linkIDLength = 16
    public static let helloType: UInt8 = 0x01
    public static let welcomeType: UInt8 = 0x02
    /// type || ephemeral key || HMAC-SHA256 tag.
    public static let greetingLength = 1 + X25519.keyLength + HMACSHA256.outputLength

    /// Names the link's mailbox at the relay: public, and unlinkable to the account.
    public let linkID: [UInt8]
    let secret: SecureBytes
    let authKey: SecureBytes
    /// The Ed25519 seed of the link's mailbox: a relay identity of its own,
    /// which both devices derive, the existing one registers, and both log in
    /// as. It names no account and is used for this one link.
    public let mailboxSeed: SecureBytes
    /// The delivery credential both devices deposit into the link mailbox
    /// with (the existing device registers its hash): no proof of work, no
    /// first-contact limit for the link's few messages.
    public let mailboxCredential: SecureBytes

    init(secret: SecureBytes) throws(ProtocolError) {
        do {
            linkID = try HKDF.deriveKey(inputKeyMaterial: secret, salt: [UInt8](), info: Labels.linkID, length: Self.linkIDLength).copyBytes()
            authKey = try HKDF.deriveKey(inputKeyMaterial: secret, salt: [UInt8](), info: Labels.linkAuth, length: 32)
            mailboxSeed = try HKDF.deriveKey(inputKeyMaterial: secret, salt: [UInt8](), info: Labels.linkMailbox, length: Ed25519.seedLength)
            mailboxCredential = try HKDF.deriveKey(inputKeyMaterial: secret, salt: [UInt8](), info: Labels.linkCredential, length: 32)
        } catch {
            throw .crypto(error)
        }
        self.secret = secret
    }

    /// The link mailbox's relay identity (§20.6): the key pair of `mailboxSeed`.
    public func mailboxIdentity() throws(ProtocolError) -> IdentityKeyPair { try IdentityKeyPair(seed: mailboxSeed) }

    /// The link id is public (the relay sees it); the secret and the MAC key are not shown.
    public var description: String { "LinkKeys(link id \(Hex.encode(linkID)), secret redacted)" }

    /// The authentication key, for vectors.
    @_spi(Vectors) public var authenticationKey: SecureBytes { authKey }

    /// The new device's first message: 0x01 || E_n || HMAC(auth key, "hush/v1/link-hello" 0x00 || 0x01 || E_n).
    public func hello(_ ephemeral: X25519.PublicKey) -> [UInt8] {
        let head = [Self.helloType] + ephemeral.rawRepresentation
        return head + HMACSHA256.authenticationCode(for: Labels.linkHello + head, key: authKey)
    }

    /// The existing device's answer: 0x02 || E_e || HMAC(auth key, "hush/v1/link-welcome" 0x00 || hello || 0x02 || E_e).
    public func welcome(_ ephemeral: X25519.PublicKey, answering hello: [UInt8]) -> [UInt8] {
        let head = [Self.welcomeType] + ephemeral.rawRepresentation
        return head + HMACSHA256.authenticationCode(for: Labels.linkWelcome + hello + head, key: authKey)
    }

    /// The new device's ephemeral key from a hello, if it was made with this code.
    public func openHello(_ hello: [UInt8]) throws(ProtocolError) -> X25519.PublicKey {
        try open(hello, type: Self.helloType, label: Labels.linkHello, prefix: [], what: "link hello")
    }

    /// The existing device's ephemeral key from a welcome answering `hello`, if made with this code.
    public func openWelcome(_ welcome: [UInt8], answering hello: [UInt8]) throws(ProtocolError) -> X25519.PublicKey {
        try open(welcome, type: Self.welcomeType, label: Labels.linkWelcome, prefix: hello, what: "link welcome")
    }

    private func open(_ bytes: [UInt8], type: UInt8, label: [UInt8], prefix: [UInt8], what: String) throws(ProtocolError) -> X25519.PublicKey {
        guard bytes.count == Self.greetingLength, bytes[0] == type else { throw .malformed(what: what) }
        let head = Array(bytes[..<(1 + X25519.keyLength)])
        guard HMACSHA256.isValid(tag: bytes[head.count...], for: label + prefix + head, key: authKey) else {
            throw .malformed(what: "\(what) (not made with this link code)")
        }
        do { return try X25519.PublicKey(rawRepresentation: Array(head[1...])) } catch { throw .crypto(error) }
    }

    /// The channel's keys, for either side: `own` is this side's ephemeral
    /// private key, `peer` the other's public one; `newDevice` and
    /// `existingDevice` are E_n and E_e, in that order whichever side computes.
    ///
    ///     OKM = HKDF(salt = none, ikm = X25519(own, peer) || S,
    ///                info = "hush/v1/link-channel" 0x00 || E_n || E_e, 101)
    public func channel(own: X25519.PrivateKey, peer: X25519.PublicKey, newDevice: X25519.PublicKey,
                        existingDevice: X25519.PublicKey) throws(ProtocolError) -> LinkChannelKeys {
        do {
            let shared = try own.sharedSecret(with: peer)
            let ikm = SecureBytes(count: shared.count + secret.count)
            ikm.withUnsafeMutableBytes { out in
                shared.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                secret.withUnsafeBytes { (out.baseAddress! + shared.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](),
                                         info: Labels.linkChannel + newDevice.rawRepresentation + existingDevice.rawRepresentation,
                                         length: LinkChannelKeys.derivedLength)
            return LinkChannelKeys(okm: okm, linkID: linkID)
        } catch {
            throw .crypto(error)
        }
    }
}

/// The keys of a link's encrypted channel (docs/PROTOCOL.md §20.6): one per
/// direction, the key of the history archive, and the six digits both
/// screens show so the user can see that the two devices talk to each other
/// and not to someone who also had the code.
public struct LinkChannelKeys: Sendable, CustomStringConvertible {
    static let derivedLength = 32 + 32 + 32 + 5

    /// Seals what the new device sends.
    public let newToExisting: SecureBytes
    /// Seals what the existing device sends.
    public let existingToNew: SecureBytes
    /// The key of the history archive: the `rk` of a §19 archive.
    public let archiveKey: SecureBytes
    /// OKM[96..<101] as a 40-bit big-endian integer mod 1 000 000, six digits.
    public let confirmation: String
    let linkID: [UInt8]

    init(okm: SecureBytes, linkID: [UInt8]) {
        newToExisting = okm.slice(0..<32)
        existingToNew = okm.slice(32..<64)
        archiveKey = okm.slice(64..<96, storage: .guarded)
        let value = okm.withUnsafeBytes { bytes in bytes[96..<101].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let number = String(value % 1_000_000)
        confirmation = String(repeating: "0", count: 6 - number.count) + number
        self.linkID = linkID
    }

    /// Who sends a channel message.
    public enum Direction: Sendable {
        case newToExisting
        case existingToNew
    }

    /// A channel message: AEAD(the direction's key, 0x00 × 23 || n, type || body, AD = link id),
    /// `n` counting that direction's messages from 0.
    public func seal(_ plaintext: [UInt8], from direction: Direction, number: UInt8) throws(ProtocolError) -> [UInt8] {
        do { return try XChaCha20Poly1305.seal(plaintext, key: key(direction), nonce: Self.nonce(number), associatedData: linkID) } catch {
            throw .crypto(error)
        }
    }

    /// Opens a channel message; anything altered, replayed out of place or not of this link fails.
    public func open(_ sealed: [UInt8], from direction: Direction, number: UInt8) throws(ProtocolError) -> [UInt8] {
        do { return try XChaCha20Poly1305.open(sealed, key: key(direction), nonce: Self.nonce(number), associatedData: linkID) } catch {
            throw .decryptionFailed
        }
    }

    private func key(_ direction: Direction) -> SecureBytes {
        direction == .newToExisting ? newToExisting : existingToNew
    }

    static func nonce(_ number: UInt8) -> [UInt8] { [UInt8](repeating: 0, count: 23) + [number] }

    public var description: String { "LinkChannelKeys(redacted)" }
}
