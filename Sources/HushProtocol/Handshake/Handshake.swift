import HushCrypto

/// The asynchronous hybrid handshake, in the manner of PQXDH:
///
///     DH1 = X25519(IK_A agreement, SPK_B)      DH2 = X25519(EK_A, IK_B agreement)
///     DH3 = X25519(EK_A, SPK_B)                DH4 = X25519(EK_A, OPK_B)   (when a one-time prekey was used)
///     (CT, SS) = ML-KEM-768.Encaps(PQPK_B)
///     TH  = SHA-256(transcript label || IK_A || IK_B || EK_A || id(SPK) || SPK_B || flag [|| id(OPK) || OPK_B] || kind(PQPK) || id(PQPK) || PQPK_B || CT)
///     OKM = HKDF-SHA256(salt = 32 × 0x00, IKM = 32 × 0xFF || DH1 || DH2 || DH3 [|| DH4] || SS, info = handshake label || TH, 96)
///     RK = OKM[0..<32], HKA = OKM[32..<64], NHKB = OKM[64..<96]
public enum Handshake {
    public static let outputLength = 96

    /// Initiator side with caller-given ephemeral key and encapsulation (for
    /// vectors). Verifies the bundle's signatures first.
    @_spi(Vectors)
    public static func initiate(identity: IdentityKeyPair, bundle: PrekeyBundle, ephemeral: X25519.PrivateKey,
                                encapsulation: MLKEM.Encapsulation) throws(ProtocolError) -> (HandshakeInit, HandshakeSecrets) {
        try bundle.verify()
        let message = try HandshakeInit(
            ephemeralKey: ephemeral.publicKey, signedPrekeyID: bundle.signedPrekey.id, oneTimePrekeyID: bundle.oneTimePrekey?.id,
            kemPrekeyKind: bundle.kemPrekey.kind, kemPrekeyID: bundle.kemPrekey.id, kemCiphertext: encapsulation.ciphertext)
        let spk = try x25519Key(bundle.signedPrekey.publicKey)
        let remoteAgreement = try bundle.identityKey.agreementKey()
        var dh: [SecureBytes] = []
        do {
            dh.append(try identity.agreementKey.sharedSecret(with: spk))
            dh.append(try ephemeral.sharedSecret(with: remoteAgreement))
            dh.append(try ephemeral.sharedSecret(with: spk))
            if let opk = bundle.oneTimePrekey { dh.append(try ephemeral.sharedSecret(with: try x25519Key(opk.publicKey))) }
        } catch let error as CryptoError { throw .crypto(error) } catch { throw .crypto(.invalidKey) }
        let transcript = transcriptHash(initiator: identity.publicKey, responder: bundle.identityKey, message: message,
                                        signedPrekey: bundle.signedPrekey.publicKey, oneTimePrekey: bundle.oneTimePrekey?.publicKey,
                                        kemPrekey: bundle.kemPrekey.publicKey)
        let secrets = try derive(dh: dh, kemSecret: encapsulation.sharedSecret, transcript: transcript,
                                 initiator: identity.publicKey, responder: bundle.identityKey)
        return (message, secrets)
    }

    /// Responder side. The caller looks up the private prekeys the message
    /// names (and deletes one-time prekeys once a session decrypted with them).
    public static func respond(identity: IdentityKeyPair, initiator: IdentityKey, message: HandshakeInit,
                               signedPrekey: PrivatePrekey, oneTimePrekey: PrivatePrekey?, kemPrekey: PrivatePrekey) throws(ProtocolError) -> HandshakeSecrets {
        guard signedPrekey.kind == .signedX25519, signedPrekey.id == message.signedPrekeyID,
              kemPrekey.kind == message.kemPrekeyKind, kemPrekey.id == message.kemPrekeyID,
              oneTimePrekey?.id == message.oneTimePrekeyID, oneTimePrekey.map({ $0.kind == .oneTimeX25519 }) ?? true
        else { throw .malformed(what: "handshake: the prekeys given are not the ones the message names") }
        let initiatorAgreement = try initiator.agreementKey()
        var dh: [SecureBytes] = []
        do {
            let spk = try signedPrekey.x25519
            dh.append(try spk.sharedSecret(with: initiatorAgreement))
            dh.append(try identity.agreementKey.sharedSecret(with: message.ephemeralKey))
            dh.append(try spk.sharedSecret(with: message.ephemeralKey))
            if let oneTimePrekey { dh.append(try oneTimePrekey.x25519.sharedSecret(with: message.ephemeralKey)) }
        } catch let error as ProtocolError { throw error } catch let error as CryptoError { throw .crypto(error) } catch { throw .crypto(.invalidKey) }
        let kem = try kemPrekey.kem
        let kemSecret: SecureBytes
        do { kemSecret = try kem.decapsulate(message.kemCiphertext) } catch { throw .crypto(error) }
        let transcript = transcriptHash(initiator: initiator, responder: identity.publicKey, message: message,
                                        signedPrekey: signedPrekey.signed.publicKey, oneTimePrekey: oneTimePrekey?.signed.publicKey,
                                        kemPrekey: kemPrekey.signed.publicKey)
        return try derive(dh: dh, kemSecret: kemSecret, transcript: transcript, initiator: initiator, responder: identity.publicKey)
    }

    static func transcriptHash(initiator: IdentityKey, responder: IdentityKey, message: HandshakeInit,
                               signedPrekey: [UInt8], oneTimePrekey: [UInt8]?, kemPrekey: [UInt8]) -> [UInt8] {
        var t = Labels.transcript
        t.append(contentsOf: initiator.rawRepresentation)
        t.append(contentsOf: responder.rawRepresentation)
        t.append(contentsOf: message.ephemeralKey.rawRepresentation)
        t.appendBigEndian(message.signedPrekeyID)
        t.append(contentsOf: signedPrekey)
        if let id = message.oneTimePrekeyID, let oneTimePrekey {
            t.append(0x01)
            t.appendBigEndian(id)
            t.append(contentsOf: oneTimePrekey)
        } else {
            t.append(0x00)
        }
        t.append(message.kemPrekeyKind.rawValue)
        t.appendBigEndian(message.kemPrekeyID)
        t.append(contentsOf: kemPrekey)
        t.append(contentsOf: message.kemCiphertext)
        return SHA256.hash(t)
    }

    static func derive(dh: [SecureBytes], kemSecret: SecureBytes, transcript: [UInt8],
                       initiator: IdentityKey, responder: IdentityKey) throws(ProtocolError) -> HandshakeSecrets {
        let length = 32 * (1 + dh.count + 1)
        let ikm = SecureBytes(count: length) { out in
            var cursor = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                (out.baseAddress! + cursor).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                cursor += bytes.count
            }
            Labels.handshakePrefix.withUnsafeBytes(put)
            for secret in dh { secret.withUnsafeBytes(put) }
            kemSecret.withUnsafeBytes(put)
        }
        let okm: SecureBytes
        do {
            okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [UInt8](repeating: 0, count: 32),
                                     info: Labels.handshake + transcript, length: outputLength)
        } catch { throw .crypto(error) }
        return HandshakeSecrets(transcriptHash: transcript, rootKey: okm.slice(0..<32), initiatorHeaderKey: okm.slice(32..<64),
                                responderNextHeaderKey: okm.slice(64..<96),
                                associatedData: initiator.rawRepresentation + responder.rawRepresentation)
    }

    static func x25519Key(_ bytes: [UInt8]) throws(ProtocolError) -> X25519.PublicKey {
        do { return try X25519.PublicKey(rawRepresentation: bytes) } catch { throw .crypto(error) }
    }
}
