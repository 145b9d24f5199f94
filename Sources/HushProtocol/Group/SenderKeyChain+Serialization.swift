import HushCrypto

/// The local form of a sender chain, as the store keeps it (docs/PROTOCOL.md
/// §13, informative: it never leaves the device, and the store encrypts it):
///
///     0x01 || group id (16) || epoch (u32) || signing key (32) || iteration (u32) || chain key (32)
///     || has signer (u8) || [signing seed (32)] || skipped count (u16) || skipped × (iteration (u32) || key (32))
extension SenderKeyChain {
    static let serializationVersion: UInt8 = 0x01

    /// The chain with its secrets: wipe the result once stored.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = [Self.serializationVersion]
        out += groupID
        out.appendBigEndian(epoch)
        out += signingKey.rawRepresentation
        out.appendBigEndian(iteration)
        chainKey.withUnsafeBytes { out.append(contentsOf: $0) }
        if let signer {
            out.append(1)
            signer.seed.withUnsafeBytes { out.append(contentsOf: $0) }
        } else {
            out.append(0)
        }
        out.appendBigEndian(UInt16(skipped.count))
        for entry in skipped {
            out.appendBigEndian(entry.iteration)
            entry.key.withUnsafeBytes { out.append(contentsOf: $0) }
        }
        return out
    }

    public static func deserialize(_ bytes: [UInt8]) throws(ProtocolError) -> SenderKeyChain {
        var reader = ByteReader(bytes, what: "stored sender chain")
        guard try reader.u8() == serializationVersion else { throw .malformed(what: "stored sender chain version") }
        let groupID = try reader.read(SenderKeyWire.groupIDLength)
        let epoch = try reader.u32()
        let signingKey: Ed25519.PublicKey
        do { signingKey = try Ed25519.PublicKey(rawRepresentation: try reader.read(32)) } catch { throw .malformed(what: "stored sender chain key") }
        let iteration = try reader.u32()
        var chain = try reader.read(32)
        defer { ConstantTime.wipe(&chain) }
        var signer: Ed25519.PrivateKey?
        if try reader.u8() == 1 {
            var seed = try reader.read(Ed25519.seedLength)
            defer { ConstantTime.wipe(&seed) }
            do { signer = try Ed25519.PrivateKey(seed: SecureBytes(copying: seed)) } catch { throw .crypto(error) }
            guard signer?.publicKey == signingKey else { throw .malformed(what: "stored sender chain signer") }
        }
        let count = Int(try reader.u16())
        guard count <= RatchetLimits.maxSkippedKeysPerChain else { throw .malformed(what: "stored sender chain skipped keys") }
        var skipped: [(iteration: UInt32, key: SecureBytes)] = []
        for _ in 0..<count {
            let at = try reader.u32()
            var key = try reader.read(32)
            skipped.append((at, SecureBytes(copying: key)))
            ConstantTime.wipe(&key)
        }
        try reader.finish()
        let restored = SenderKeyChain(groupID: groupID, epoch: epoch, signingKey: signingKey, signer: signer,
                                      chainKey: SecureBytes(copying: chain), iteration: iteration)
        restored.skipped = skipped
        return restored
    }

    /// Whether this chain is one's own (it can encrypt).
    public var isOwn: Bool { signer != nil }
}
