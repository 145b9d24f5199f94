import HushCrypto

/// A 1:1 session: the Double Ratchet plus who is on each end and, for the
/// initiator, the handshake data it must attach until the responder answers.
/// This is what the messenger creates, persists (`serialized()`), and calls
/// to turn plaintext into envelopes and back.
///
/// Not thread-safe: one caller at a time per session (the messenger's actor).
public final class Session {
    public let localIdentity: IdentityKey
    public let remoteIdentity: IdentityKey
    /// The initiator's ephemeral key: names the handshake on both sides.
    public let handshakeID: [UInt8]
    /// Attached (as a prekey message) to everything the initiator sends until
    /// the first message from the responder decrypts.
    public private(set) var pendingHandshake: HandshakeInit?
    /// For a session a device started (§20.10): the account's certificate of
    /// that device, sent with the handshake (a device prekey message, type
    /// 0x03) until the peer answers, so the peer knows whose device it is.
    public let deviceCertificate: DeviceCertificate?
    public let ratchet: DoubleRatchet

    init(localIdentity: IdentityKey, remoteIdentity: IdentityKey, handshakeID: [UInt8], pendingHandshake: HandshakeInit?,
         deviceCertificate: DeviceCertificate? = nil, ratchet: DoubleRatchet) {
        self.localIdentity = localIdentity
        self.remoteIdentity = remoteIdentity
        self.handshakeID = handshakeID
        self.pendingHandshake = pendingHandshake
        self.deviceCertificate = deviceCertificate
        self.ratchet = ratchet
    }

    /// Starts a session with the owner of `address` from a bundle the relay
    /// handed out. Refuses a bundle whose identity is not the address's or
    /// whose signatures fail. Draws the ephemeral key, then the first ratchet
    /// key, from `random`, and encapsulates to the bundle's KEM prekey.
    public static func initiate(identity: IdentityKeyPair, to address: HushAddress, bundle: PrekeyBundle,
                                using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> Session {
        // The signatures are verified by Handshake.initiate, before any key is used.
        guard bundle.identityKey.constantTimeEquals(address.identityKey) else { throw .identityMismatch }
        let ephemeral = X25519.PrivateKey(using: random)
        let ratchetKey = X25519.PrivateKey(using: random)
        let encapsulation: MLKEM.Encapsulation
        do { encapsulation = try MLKEM.encapsulate(to: bundle.kemPrekey.publicKey) } catch { throw .crypto(error) }
        return try initiate(identity: identity, bundle: bundle, ephemeral: ephemeral, ratchetKey: ratchetKey, encapsulation: encapsulation)
    }

    /// Starts a session between this device and `device`, a device of a
    /// contact's account (§20.10), from the bundle the relay handed out for
    /// it. `device` is the key the verified device list names (§5.3 step 1
    /// compares with it, not with the address); `certificate` is this
    /// device's, from its account, attached to every message until the peer
    /// answers. Use the account's key pair and no certificate for an account
    /// without a list (§20.13).
    public static func initiate(device identity: IdentityKeyPair, certificate: DeviceCertificate?, to device: Ed25519.PublicKey,
                                bundle: PrekeyBundle, using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> Session {
        guard ConstantTime.equals(bundle.identityKey.rawRepresentation, device.rawRepresentation) else { throw .identityMismatch }
        if let certificate, !ConstantTime.equals(certificate.device.rawRepresentation, identity.publicKey.rawRepresentation) {
            throw .malformed(what: "a device certificate of another device")
        }
        let ephemeral = X25519.PrivateKey(using: random)
        let ratchetKey = X25519.PrivateKey(using: random)
        let encapsulation: MLKEM.Encapsulation
        do { encapsulation = try MLKEM.encapsulate(to: bundle.kemPrekey.publicKey) } catch { throw .crypto(error) }
        return try initiate(identity: identity, bundle: bundle, ephemeral: ephemeral, ratchetKey: ratchetKey, encapsulation: encapsulation,
                            certificate: certificate)
    }

    /// Initiator with every random input given (vectors and tests).
    @_spi(Vectors)
    public static func initiate(identity: IdentityKeyPair, bundle: PrekeyBundle, ephemeral: X25519.PrivateKey,
                                ratchetKey: X25519.PrivateKey, encapsulation: MLKEM.Encapsulation,
                                certificate: DeviceCertificate? = nil) throws(ProtocolError) -> Session {
        let (message, secrets) = try Handshake.initiate(identity: identity, bundle: bundle, ephemeral: ephemeral, encapsulation: encapsulation)
        let spk = try Handshake.x25519Key(bundle.signedPrekey.publicKey)
        let ratchet = try DoubleRatchet(initiator: secrets, responderRatchetKey: spk, ratchetKey: ratchetKey)
        return Session(localIdentity: identity.publicKey, remoteIdentity: bundle.identityKey,
                       handshakeID: ephemeral.publicKey.rawRepresentation, pendingHandshake: message, deviceCertificate: certificate,
                       ratchet: ratchet)
    }

    /// Accepts a first-contact (prekey) message. The caller looks up the
    /// private prekeys `opened.handshake` names, then decrypts the message
    /// with `open` on the new session, and deletes a used one-time prekey
    /// only once that decryption succeeded.
    public static func accept(identity: IdentityKeyPair, opened: OpenedEnvelope, signedPrekey: PrivatePrekey,
                              oneTimePrekey: PrivatePrekey?, kemPrekey: PrivatePrekey) throws(ProtocolError) -> Session {
        guard let handshake = opened.handshake else { throw .malformed(what: "first message without handshake data") }
        let secrets = try Handshake.respond(identity: identity, initiator: opened.sender, message: handshake,
                                            signedPrekey: signedPrekey, oneTimePrekey: oneTimePrekey, kemPrekey: kemPrekey)
        let ratchet = DoubleRatchet(responder: secrets, ratchetKey: try signedPrekey.x25519)
        return Session(localIdentity: identity.publicKey, remoteIdentity: opened.sender,
                       handshakeID: handshake.ephemeralKey.rawRepresentation, pendingHandshake: nil, ratchet: ratchet)
    }

    /// True when a prekey message belongs to this session's handshake (the
    /// initiator re-sends handshake data until answered).
    public func matches(_ handshake: HandshakeInit) -> Bool {
        ConstantTime.equals(handshake.ephemeralKey.rawRepresentation, handshakeID)
    }

    /// Pads, encrypts and seals `content` into an envelope for the relay.
    /// Draws the sealed layer's ephemeral key from `random`.
    public func seal(_ content: [UInt8], using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> [UInt8] {
        let message = try ratchet.encrypt(content)
        return try SealedSender.seal(OpenedEnvelope(sender: localIdentity, handshake: pendingHandshake, ratchetMessage: message,
                                                    deviceCertificate: pendingHandshake == nil ? nil : deviceCertificate),
                                     to: remoteIdentity, using: random)
    }

    /// Decrypts an opened envelope. Checks that its sender is this session's
    /// peer (and that handshake data, if any, is this session's); on any
    /// failure the session and the store are unchanged.
    public func open(_ opened: OpenedEnvelope, skippedKeys: any SkippedMessageKeyStore,
                     using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> [UInt8] {
        guard opened.sender.constantTimeEquals(remoteIdentity) else { throw .senderMismatch }
        if let handshake = opened.handshake, !matches(handshake) { throw .senderMismatch }
        let content = try ratchet.decrypt(opened.ratchetMessage, skippedKeys: skippedKeys, using: random)
        // Only the responder's messages carry no handshake; once one decrypts
        // the responder has the session and the initiator can stop attaching it.
        if opened.handshake == nil { pendingHandshake = nil }
        return content
    }
}

extension Session: CustomStringConvertible {
    public var description: String { "Session(\(remoteIdentity.address), redacted)" }
}
