import HushCrypto

/// The local form of a large group's chain, as the store keeps it
/// (docs/PROTOCOL.md §18.4; it never leaves the device, and the store
/// encrypts it):
///
///     0x01 || group id (16) || epoch (u32) || member identity key (32) || bound (u8)
///     bound 0: initial chain key (32)                      -- no message moved it yet
///     bound 1: length (u32) || a stored sender chain (`SenderKeyChain.serialized`)
///              || has binding (u8) || [binding (64)]        -- the binding only for one's own
///
/// A chain that moved is written without its initial key: what is kept
/// gives no message key before the chain's position (§18.4, as §18.1 keeps
/// only ratcheted chain keys).
extension LargeGroupChain {
    static let serializationVersion: UInt8 = 0x01

    /// The chain with its secrets: wipe the result once stored.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = [Self.serializationVersion]
        out += groupID
        out.appendBigEndian(epoch)
        out += member.rawRepresentation
        guard let keys else {
            out.append(0)
            initialChainKey.withUnsafeBytes { out.append(contentsOf: $0) }
            return out
        }
        out.append(1)
        var chain = keys.serialized()
        defer { ConstantTime.wipe(&chain) }
        out.appendBigEndian(UInt32(chain.count))
        out += chain
        if let binding {
            out.append(1)
            out += binding
        } else {
            out.append(0)
        }
        return out
    }

    public static func deserialize(_ bytes: [UInt8]) throws(ProtocolError) -> LargeGroupChain {
        var reader = ByteReader(bytes, what: "stored large group chain")
        guard try reader.u8() == serializationVersion else { throw .malformed(what: "stored large group chain version") }
        let groupID = try reader.read(SenderKeyWire.groupIDLength)
        let epoch = try reader.u32()
        let member = try IdentityKey(rawRepresentation: try reader.read(IdentityKey.length))
        switch try reader.u8() {
        case 0:
            var initial = try reader.read(32)
            defer { ConstantTime.wipe(&initial) }
            try reader.finish()
            return LargeGroupChain(groupID: groupID, epoch: epoch, member: member, initialChainKey: SecureBytes(copying: initial),
                                   keys: nil, binding: nil)
        case 1:
            let length = Int(try reader.u32())
            var chainBytes = try reader.read(length)
            defer { ConstantTime.wipe(&chainBytes) }
            let keys = try SenderKeyChain.deserialize(chainBytes)
            guard ConstantTime.equals(keys.groupID, groupID), keys.epoch == epoch else { throw .malformed(what: "stored large group chain") }
            var binding: [UInt8]?
            if try reader.u8() == 1 {
                binding = try reader.read(Ed25519.signatureLength)
                // Only one's own chain signs, and only it carries a binding.
                guard keys.isOwn else { throw .malformed(what: "stored large group chain binding") }
            }
            try reader.finish()
            // The initial key is not kept once the chain moved; an empty one stands in, never used (`keys` is set).
            return LargeGroupChain(groupID: groupID, epoch: epoch, member: member, initialChainKey: SecureBytes(count: 32),
                                   keys: keys, binding: binding)
        default:
            throw .malformed(what: "stored large group chain")
        }
    }

    /// Whether this chain is one's own (it can encrypt).
    public var isOwn: Bool { binding != nil }
}
