import HushCrypto

/// The Double Ratchet with header encryption (Signal's specification,
/// section 4: header keys HKs/HKr/NHKs/NHKr), HKDF-SHA256 root chain,
/// HMAC-SHA256 message chains and XChaCha20-Poly1305.
///
/// A message is
///
///     header nonce (24) || XChaCha20-Poly1305(HKs, nonce, header (40), AD)        -- 80 bytes
///     || XChaCha20-Poly1305(MK, 24 × 0x00, padded content, AD || the 80 bytes above)
///
/// with header = ratchet public key (32) || PN (4) || N (4), big-endian.
///
/// Decryption works on temporaries and commits only once the body
/// authenticated (and padding checked), so any failure leaves the state as it
/// was. Chain keys are updated in place; per-message keys live in stack
/// buffers that are wiped after use.
public final class DoubleRatchet {
    static let zeroNonce = [UInt8](repeating: 0, count: 24)

    /// initiator identity key || responder identity key.
    public let associatedData: [UInt8]
    var rootKey: SecureBytes
    var sendingRatchetKey: X25519.PrivateKey
    var receivingRatchetKey: X25519.PublicKey?
    var sendingChainKey: SecureBytes?
    var receivingChainKey: SecureBytes?
    var sendingHeaderKey: SecureBytes?
    var receivingHeaderKey: SecureBytes?
    var nextSendingHeaderKey: SecureBytes
    var nextReceivingHeaderKey: SecureBytes
    public private(set) var sendCount: UInt32 = 0
    public private(set) var receiveCount: UInt32 = 0
    public private(set) var previousSendCount: UInt32 = 0

    /// RatchetInitAlice: the initiator ratchets at once against the responder's signed prekey.
    public init(initiator secrets: HandshakeSecrets, responderRatchetKey: X25519.PublicKey, ratchetKey: X25519.PrivateKey) throws(ProtocolError) {
        associatedData = secrets.associatedData
        sendingRatchetKey = ratchetKey
        receivingRatchetKey = responderRatchetKey
        let dh: SecureBytes
        do { dh = try ratchetKey.sharedSecret(with: responderRatchetKey) } catch { throw .crypto(error) }
        let (rk, ck, nhk) = try ChainStep.root(secrets.rootKey, dh)
        rootKey = rk
        sendingChainKey = ck
        nextSendingHeaderKey = nhk
        sendingHeaderKey = secrets.initiatorHeaderKey
        nextReceivingHeaderKey = secrets.responderNextHeaderKey
    }

    /// RatchetInitBob: the responder's first ratchet key is its signed prekey.
    public init(responder secrets: HandshakeSecrets, ratchetKey: X25519.PrivateKey) {
        associatedData = secrets.associatedData
        sendingRatchetKey = ratchetKey
        rootKey = secrets.rootKey
        nextSendingHeaderKey = secrets.responderNextHeaderKey
        nextReceivingHeaderKey = secrets.initiatorHeaderKey
    }

    init(associatedData: [UInt8], rootKey: SecureBytes, sendingRatchetKey: X25519.PrivateKey, receivingRatchetKey: X25519.PublicKey?,
         sendingChainKey: SecureBytes?, receivingChainKey: SecureBytes?, sendingHeaderKey: SecureBytes?, receivingHeaderKey: SecureBytes?,
         nextSendingHeaderKey: SecureBytes, nextReceivingHeaderKey: SecureBytes, sendCount: UInt32, receiveCount: UInt32, previousSendCount: UInt32) {
        self.associatedData = associatedData
        self.rootKey = rootKey
        self.sendingRatchetKey = sendingRatchetKey
        self.receivingRatchetKey = receivingRatchetKey
        self.sendingChainKey = sendingChainKey
        self.receivingChainKey = receivingChainKey
        self.sendingHeaderKey = sendingHeaderKey
        self.receivingHeaderKey = receivingHeaderKey
        self.nextSendingHeaderKey = nextSendingHeaderKey
        self.nextReceivingHeaderKey = nextReceivingHeaderKey
        self.sendCount = sendCount
        self.receiveCount = receiveCount
        self.previousSendCount = previousSendCount
    }

    /// True once this side can send (the responder must first receive).
    public var canSend: Bool { sendingChainKey != nil && sendingHeaderKey != nil }

    // MARK: Encrypt

    /// Pads `content` and encrypts it as the next message of the sending chain.
    /// The padded plaintext is written straight into the output and sealed in
    /// place; per-message keys live in a wiped stack buffer.
    public func encrypt(_ content: [UInt8]) throws(ProtocolError) -> [UInt8] {
        guard let chainKey = sendingChainKey, let headerKey = sendingHeaderKey else {
            throw .sessionUnusable("the responder cannot send before the first message arrived")
        }
        guard sendCount < UInt32.max else { throw .sessionUnusable("the sending chain is exhausted") }
        guard content.count <= Padding.maximumContentLength else { throw .limitExceeded(what: "message content") }
        let paddedLength = Padding.paddedLength(forContentLength: content.count)
        let headerEnd = RatchetConstants.encryptedHeaderLength
        var out = [UInt8](repeating: 0, count: headerEnd + paddedLength + RatchetConstants.tagLength)
        let ratchetPublic = sendingRatchetKey.publicKey.rawRepresentation
        var failed = false
        out.withUnsafeMutableBytes { buffer in
            withUnsafeTemporaryAllocation(byteCount: 64 + 40 + 144, alignment: 16) { tmp in
                defer { ConstantTime.wipe(tmp) }
                let messageKey = UnsafeMutableRawBufferPointer(rebasing: tmp[0..<32])
                let nonce = UnsafeMutableRawBufferPointer(rebasing: tmp[32..<64])
                let header = UnsafeMutableRawBufferPointer(rebasing: tmp[64..<104])
                let bodyAD = UnsafeMutableRawBufferPointer(rebasing: tmp[104..<248])
                chainKey.withUnsafeMutableBytes { ChainStep.advance($0, messageKey: messageKey, headerNonce: nonce) }
                ratchetPublic.withUnsafeBytes { header.copyMemory(from: $0) }
                DoubleRatchet.storeBigEndian(previousSendCount, into: header, at: 32)
                DoubleRatchet.storeBigEndian(sendCount, into: header, at: 36)
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<24]).copyMemory(from: UnsafeRawBufferPointer(rebasing: nonce[0..<24]))
                content.withUnsafeBytes { c in
                    if c.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[headerEnd..<(headerEnd + c.count)]).copyMemory(from: c) }
                }
                buffer[headerEnd + content.count] = 0x80
                do {
                    try headerKey.withUnsafeBytes { k in
                        try associatedData.withUnsafeBytes { ad in
                            try XChaCha20Poly1305.seal(UnsafeRawBufferPointer(header), key: k, nonce: UnsafeRawBufferPointer(rebasing: nonce[0..<24]),
                                                       associatedData: ad, into: UnsafeMutableRawBufferPointer(rebasing: buffer[24..<headerEnd]))
                            bodyAD.copyMemory(from: ad)
                        }
                    }
                    UnsafeMutableRawBufferPointer(rebasing: bodyAD[64...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[0..<headerEnd]))
                    let body = UnsafeMutableRawBufferPointer(rebasing: buffer[headerEnd...])
                    try DoubleRatchet.zeroNonce.withUnsafeBytes { n in
                        try XChaCha20Poly1305.seal(UnsafeRawBufferPointer(rebasing: body[0..<paddedLength]), key: UnsafeRawBufferPointer(messageKey),
                                                   nonce: n, associatedData: UnsafeRawBufferPointer(bodyAD), into: body)
                    }
                } catch {
                    failed = true
                }
            }
        }
        guard !failed else { throw .crypto(.libraryFailure("XChaCha20-Poly1305 seal")) }
        sendCount += 1
        return out
    }

    static func storeBigEndian(_ value: UInt32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer[offset] = UInt8(value >> 24)
        buffer[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        buffer[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    // MARK: Decrypt

    struct Header {
        let ratchetKey: [UInt8]
        let previousCount: UInt32
        let counter: UInt32
    }

    func openHeader(_ message: [UInt8], key: SecureBytes) -> Header? {
        message.withUnsafeBytes { m in
            withUnsafeTemporaryAllocation(byteCount: RatchetConstants.headerLength, alignment: 16) { plain -> Header? in
                let opened: Bool = key.withUnsafeBytes { k in
                    associatedData.withUnsafeBytes { ad in
                        (try? XChaCha20Poly1305.open(UnsafeRawBufferPointer(rebasing: m[24..<RatchetConstants.encryptedHeaderLength]), key: k,
                                                     nonce: UnsafeRawBufferPointer(rebasing: m[0..<24]), associatedData: ad, into: plain)) != nil
                    }
                }
                guard opened else { return nil }
                func u32(_ at: Int) -> UInt32 {
                    UInt32(plain[at]) << 24 | UInt32(plain[at + 1]) << 16 | UInt32(plain[at + 2]) << 8 | UInt32(plain[at + 3])
                }
                return Header(ratchetKey: Array(UnsafeRawBufferPointer(rebasing: plain[0..<32])), previousCount: u32(32), counter: u32(36))
            }
        }
    }

    /// Opens the body and removes its padding in place; nil on any failure.
    func openBody(_ message: [UInt8], messageKey: UnsafeRawBufferPointer) -> [UInt8]? {
        let headerEnd = RatchetConstants.encryptedHeaderLength
        let paddedLength = message.count - headerEnd - RatchetConstants.tagLength
        guard paddedLength >= 0 else { return nil }
        var contentLength: Int? = nil
        var plain = [UInt8](unsafeUninitializedCapacity: paddedLength) { out, written in
            written = 0
            message.withUnsafeBytes { m in
                withUnsafeTemporaryAllocation(byteCount: 144, alignment: 16) { bodyAD in
                    associatedData.withUnsafeBytes { bodyAD.copyMemory(from: $0) }
                    UnsafeMutableRawBufferPointer(rebasing: bodyAD[64...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: m[0..<headerEnd]))
                    let opened: Bool = DoubleRatchet.zeroNonce.withUnsafeBytes { n in
                        (try? XChaCha20Poly1305.open(UnsafeRawBufferPointer(rebasing: m[headerEnd...]), key: messageKey, nonce: n,
                                                     associatedData: UnsafeRawBufferPointer(bodyAD),
                                                     into: UnsafeMutableRawBufferPointer(out))) != nil
                    }
                    if opened {
                        written = paddedLength
                        contentLength = Padding.contentLength(ofPadded: UnsafeRawBufferPointer(out))
                    }
                }
            }
        }
        guard let contentLength else {
            ConstantTime.wipe(&plain)
            return nil
        }
        plain.removeLast(plain.count - contentLength)
        return plain
    }

    /// Decrypts one message. On any failure the ratchet state and the store
    /// are unchanged. `random` supplies the next ratchet key when the message
    /// starts a new chain (a DH ratchet step).
    public func decrypt(_ message: [UInt8], skippedKeys store: any SkippedMessageKeyStore,
                        using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> [UInt8] {
        let minimum = RatchetConstants.encryptedHeaderLength + RatchetConstants.tagLength + Padding.minimumPaddedLength
        guard message.count >= minimum,
              message.count <= RatchetConstants.encryptedHeaderLength + RatchetConstants.tagLength + Padding.maximumPaddedLength
        else { throw .decryptionFailed }

        // 1. A message whose key was skipped earlier.
        let storedHeaderKeys: [SecureBytes]
        do { storedHeaderKeys = try store.headerKeys() } catch { throw .storage("\(error)") }
        for headerKey in storedHeaderKeys {
            guard let header = openHeader(message, key: headerKey) else { continue }
            let stored: SecureBytes?
            do { stored = try store.messageKey(headerKey: headerKey, counter: header.counter) } catch { throw .storage("\(error)") }
            guard let messageKey = stored else { break }  // the chain is known but not this key: try the live chains
            guard let plain = messageKey.withUnsafeBytes({ openBody(message, messageKey: $0) }) else { throw .decryptionFailed }
            do { try store.remove(headerKey: headerKey, counter: header.counter) } catch { throw .storage("\(error)") }
            return plain
        }

        // 2. The current receiving chain.
        if let headerKey = receivingHeaderKey, let header = openHeader(message, key: headerKey) {
            return try decryptInCurrentChain(message, header: header, headerKey: headerKey, store: store)
        }

        // 3. A new chain: DH ratchet step.
        if let header = openHeader(message, key: nextReceivingHeaderKey) {
            return try decryptWithRatchetStep(message, header: header, store: store, random: random)
        }
        throw .decryptionFailed
    }

    private func decryptInCurrentChain(_ message: [UInt8], header: Header, headerKey: SecureBytes,
                                       store: any SkippedMessageKeyStore) throws(ProtocolError) -> [UInt8] {
        guard let chainKey = receivingChainKey, let current = receivingRatchetKey,
              ConstantTime.equals(current.rawRepresentation, header.ratchetKey),
              header.counter >= receiveCount  // earlier keys were used or stored: a replay
        else { throw .decryptionFailed }
        guard Int(header.counter - receiveCount) <= RatchetLimits.maxForwardJump else { throw .messageGapTooLarge }

        let result: Result<[UInt8], ProtocolError> = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { tmp in
            defer { ConstantTime.wipe(tmp) }
            let workingChain = UnsafeMutableRawBufferPointer(rebasing: tmp[0..<32])
            let messageKey = UnsafeMutableRawBufferPointer(rebasing: tmp[32..<64])
            chainKey.withUnsafeBytes { workingChain.copyMemory(from: $0) }
            let skipped = DoubleRatchet.skip(workingChain, from: receiveCount, to: header.counter, headerKey: headerKey, scratch: messageKey)
            ChainStep.advance(workingChain, messageKey: messageKey)
            guard let plain = openBody(message, messageKey: UnsafeRawBufferPointer(messageKey)) else { return .failure(.decryptionFailed) }
            if !skipped.isEmpty {
                do { try store.insert(skipped) } catch { return .failure(.storage("\(error)")) }
            }
            // Commit.
            chainKey.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(workingChain)) }
            receiveCount = header.counter + 1
            return .success(plain)
        }
        return try result.get()
    }

    private func decryptWithRatchetStep(_ message: [UInt8], header: Header, store: any SkippedMessageKeyStore,
                                        random: any RandomSource) throws(ProtocolError) -> [UInt8] {
        // Bounds first: the old chain's tail plus the new chain's head.
        var oldTail = 0
        if receivingChainKey != nil {
            guard header.previousCount >= receiveCount else { throw .decryptionFailed }
            oldTail = Int(header.previousCount - receiveCount)
        }
        guard oldTail <= RatchetLimits.maxForwardJump, Int(header.counter) <= RatchetLimits.maxForwardJump,
              oldTail + Int(header.counter) <= RatchetLimits.maxForwardJump
        else { throw .messageGapTooLarge }

        let theirKey: X25519.PublicKey
        do { theirKey = try X25519.PublicKey(rawRepresentation: header.ratchetKey) } catch { throw .decryptionFailed }
        let receiveSecret: SecureBytes
        do { receiveSecret = try sendingRatchetKey.sharedSecret(with: theirKey) } catch { throw .decryptionFailed }
        let (rootAfterReceive, newReceivingChain, newNextReceivingHeaderKey) = try ChainStep.root(rootKey, receiveSecret)
        let newRatchetKey = X25519.PrivateKey(using: random)
        let sendSecret: SecureBytes
        do { sendSecret = try newRatchetKey.sharedSecret(with: theirKey) } catch { throw .decryptionFailed }
        let (newRoot, newSendingChain, newNextSendingHeaderKey) = try ChainStep.root(rootAfterReceive, sendSecret)

        let result: Result<[UInt8], ProtocolError> = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { tmp in
            defer { ConstantTime.wipe(tmp) }
            let workingChain = UnsafeMutableRawBufferPointer(rebasing: tmp[0..<32])
            let messageKey = UnsafeMutableRawBufferPointer(rebasing: tmp[32..<64])
            var skipped: [SkippedMessageKey] = []
            if let oldChain = receivingChainKey, let oldHeaderKey = receivingHeaderKey {
                oldChain.withUnsafeBytes { workingChain.copyMemory(from: $0) }
                skipped = DoubleRatchet.skip(workingChain, from: receiveCount, to: header.previousCount, headerKey: oldHeaderKey, scratch: messageKey)
            }
            // The new chain is a fresh buffer nobody else holds: advance it in place.
            newReceivingChain.withUnsafeMutableBytes { chain in
                skipped += DoubleRatchet.skip(chain, from: 0, to: header.counter, headerKey: nextReceivingHeaderKey, scratch: messageKey)
                ChainStep.advance(chain, messageKey: messageKey)
            }
            guard let plain = openBody(message, messageKey: UnsafeRawBufferPointer(messageKey)) else { return .failure(.decryptionFailed) }
            if !skipped.isEmpty {
                do { try store.insert(skipped) } catch { return .failure(.storage("\(error)")) }
            }
            // Commit (DHRatchet of the specification, with header keys).
            previousSendCount = sendCount
            sendCount = 0
            receiveCount = header.counter + 1
            sendingHeaderKey = nextSendingHeaderKey
            receivingHeaderKey = nextReceivingHeaderKey
            receivingRatchetKey = theirKey
            nextReceivingHeaderKey = newNextReceivingHeaderKey
            nextSendingHeaderKey = newNextSendingHeaderKey
            receivingChainKey = newReceivingChain
            sendingChainKey = newSendingChain
            sendingRatchetKey = newRatchetKey
            rootKey = newRoot
            return .success(plain)
        }
        return try result.get()
    }

    /// Derives the message keys `from..<to` of a chain (advancing `chain`),
    /// as entries for the skipped-key store.
    static func skip(_ chain: UnsafeMutableRawBufferPointer, from: UInt32, to: UInt32, headerKey: SecureBytes,
                     scratch: UnsafeMutableRawBufferPointer) -> [SkippedMessageKey] {
        guard to > from else { return [] }
        var keys: [SkippedMessageKey] = []
        keys.reserveCapacity(Int(to - from))
        let storedHeaderKey = headerKey.slice(0..<headerKey.count)
        for counter in from..<to {
            ChainStep.advance(chain, messageKey: scratch)
            keys.append(SkippedMessageKey(headerKey: storedHeaderKey, counter: counter,
                                          messageKey: SecureBytes(copying: UnsafeRawBufferPointer(scratch))))
        }
        ConstantTime.wipe(scratch)
        return keys
    }
}

extension DoubleRatchet: CustomStringConvertible {
    public var description: String { "DoubleRatchet(redacted, sent \(sendCount), received \(receiveCount))" }
}
