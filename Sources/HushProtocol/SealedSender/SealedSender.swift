import HushCrypto

/// The envelope the relay receives. It names nothing about the sender: the
/// sender's identity (and, on first contact, the handshake data) travels
/// inside an ephemeral-static X25519 layer to the recipient's identity
/// agreement key, as in Signal's sealed sender v1. The relay routes by the
/// recipient's identity key, given beside the envelope, never inside it.
///
///     envelope = version (1: 0x01) || E (32: ephemeral X25519 public key)
///                || XChaCha20-Poly1305(K, 24 × 0x00, inner, AD = version || E || recipient identity key)
///     K = HKDF-SHA256(salt = E || X_B, IKM = X25519(e, X_B), info = "hush/v1/sealed-sender" 0x00, 32)
///
/// X_B is the recipient's agreement key (the birational image of its identity
/// key). K is fresh for every envelope (a new E each time), so the zero nonce never repeats under a key.
public enum SealedSender {
    public static let version: UInt8 = 0x01
    public static let overhead = 1 + 32 + 16
    /// The smallest valid envelope: a message with a minimum-size body.
    public static let minimumLength = overhead + 1 + 32 + RatchetConstants.encryptedHeaderLength + RatchetConstants.tagLength + Padding.minimumPaddedLength
    /// The largest envelope an account without devices seals (a prekey
    /// message with the largest body): 49 + 1 + 32 + 1134 + 80 + 16 + 67 584 = 68 896.
    public static let maximumAccountLength = overhead + 1 + 32 + 1134 + RatchetConstants.encryptedHeaderLength + RatchetConstants.tagLength
        + Padding.maximumPaddedLength
    /// The largest valid envelope (a device prekey message with the largest
    /// body, §20.10: 96 bytes of account key and certificate more): 69 024.
    /// Relays and receivers MUST refuse larger ones.
    public static let maximumLength = maximumAccountLength + DeviceCertificate.encodedLength

    /// What a relay can check without any key: the version byte and the size
    /// bounds. Throws `unsupportedVersion` or `limitExceeded`/`malformed`; a
    /// relay should answer 422 (malformed) or 413 (too large) accordingly.
    public static func checkShape(_ envelope: [UInt8]) throws(ProtocolError) {
        guard let first = envelope.first else { throw .malformed(what: "envelope (empty)") }
        guard first == version else { throw .unsupportedVersion(first) }
        guard envelope.count <= maximumLength else { throw .limitExceeded(what: "envelope") }
        guard envelope.count >= minimumLength else { throw .malformed(what: "envelope (too short)") }
    }

    /// Seals `contents` to `recipient`. Draws the 32-byte ephemeral scalar from `random`.
    public static func seal(_ contents: OpenedEnvelope, to recipient: IdentityKey, using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> [UInt8] {
        let ephemeral = X25519.PrivateKey(using: random)
        let agreement = try recipient.agreementKey()
        let key = try layerKey(shared: { () throws(CryptoError) in try ephemeral.sharedSecret(with: agreement) },
                               ephemeral: ephemeral.publicKey, recipientAgreement: agreement)
        var inner = contents.encoded
        defer { ConstantTime.wipe(&inner) }
        let header = [version] + ephemeral.publicKey.rawRepresentation
        do {
            return header + (try XChaCha20Poly1305.seal(inner, key: key, nonce: DoubleRatchet.zeroNonce,
                                                        associatedData: header + recipient.rawRepresentation))
        } catch { throw .crypto(error) }
    }

    /// Opens an envelope addressed to `recipient`. Any failure past the
    /// version byte is `decryptionFailed`, whatever was wrong. A device
    /// prekey message (§20.10) is read only `acceptingDevicePrekeyMessages`
    /// (its certificate verified as it is read): a receiver that does not
    /// file sessions per device refuses it as an unknown type.
    public static func open(_ envelope: [UInt8], recipient: IdentityKeyPair,
                            acceptingDevicePrekeyMessages: Bool = false) throws(ProtocolError) -> OpenedEnvelope {
        guard let first = envelope.first else { throw .malformed(what: "envelope (empty)") }
        guard first == version else { throw .unsupportedVersion(first) }
        guard envelope.count >= minimumLength, envelope.count <= maximumLength else { throw .decryptionFailed }
        let ephemeralBytes = Array(envelope[1..<33])
        guard let ephemeral = try? X25519.PublicKey(rawRepresentation: ephemeralBytes) else { throw .decryptionFailed }
        let agreement = recipient.agreementKey
        let key: SecureBytes
        do {
            key = try layerKey(shared: { () throws(CryptoError) in try agreement.sharedSecret(with: ephemeral) },
                               ephemeral: ephemeral, recipientAgreement: agreement.publicKey)
        } catch { throw .decryptionFailed }
        guard var inner = try? XChaCha20Poly1305.open(envelope[33...], key: key, nonce: DoubleRatchet.zeroNonce,
                                                      associatedData: Array(envelope[0..<33]) + recipient.publicKey.rawRepresentation)
        else { throw .decryptionFailed }
        defer { ConstantTime.wipe(&inner) }
        return try OpenedEnvelope.decode(inner, acceptingDevicePrekeyMessages: acceptingDevicePrekeyMessages)
    }

    @_spi(Vectors) public static func layerKey(shared: () throws(CryptoError) -> SecureBytes, ephemeral: X25519.PublicKey,
                         recipientAgreement: X25519.PublicKey) throws(ProtocolError) -> SecureBytes {
        do {
            let secret = try shared()
            return try HKDF.deriveKey(inputKeyMaterial: secret, salt: ephemeral.rawRepresentation + recipientAgreement.rawRepresentation,
                                      info: Labels.sealedSender, length: 32)
        } catch { throw .crypto(error) }
    }
}
