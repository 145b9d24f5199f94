import HushCrypto

/// What the relay stores for a group message (docs/PROTOCOL.md §18.3): the
/// sender-key message under the group state's envelope key, so the relay
/// sees neither the group id nor which member's chain (its signing key)
/// wrote it, only a version byte, a random nonce and ciphertext. The same
/// bytes go to every member (one fan-out deposit).
///
///     0x02 || nonce (24) || XChaCha20-Poly1305(EK, nonce, group message, AD = 0x02 || nonce)
///
/// Its length, 434 … 67 858 bytes (a §18.1 message, or a large group's
/// version 0x02 with its longer head, §18.4), lies within the sealed
/// envelope's bounds (§9.1), so a relay need not tell the two apart.
public enum GroupEnvelope {
    public static let version: UInt8 = 0x02
    public static let overhead = 1 + XChaCha20Poly1305.nonceLength + XChaCha20Poly1305.tagLength
    public static let minimumLength = overhead + SenderKeyWire.minimumMessageLength
    public static let maximumLength = overhead + LargeGroupMessageHead.maximumMessageLength

    public static func isGroupEnvelope(_ envelope: [UInt8]) -> Bool { envelope.first == version }

    public static func seal(_ groupMessage: [UInt8], key: SecureBytes, using random: any RandomSource = SystemRandom()) throws(ProtocolError) -> [UInt8] {
        try seal(groupMessage, key: key, nonce: random.bytes(XChaCha20Poly1305.nonceLength))
    }

    /// With a given nonce (vectors; `seal` draws it).
    @_spi(Vectors)
    public static func seal(_ groupMessage: [UInt8], key: SecureBytes, nonce: [UInt8]) throws(ProtocolError) -> [UInt8] {
        let bounds = groupMessage.first == LargeGroupMessageHead.version
            ? LargeGroupMessageHead.minimumMessageLength...LargeGroupMessageHead.maximumMessageLength
            : SenderKeyWire.minimumMessageLength...SenderKeyWire.maximumMessageLength
        guard bounds.contains(groupMessage.count) else { throw .malformed(what: "group message (length)") }
        let head = [version] + nonce
        do {
            return head + (try XChaCha20Poly1305.seal(groupMessage, key: key, nonce: nonce, associatedData: head))
        } catch {
            throw .crypto(error)
        }
    }

    /// The group message inside, or nil when `key` does not open it (another
    /// group's or another state's envelope): receivers try the keys of the
    /// states they hold. A wrong version or length is malformed.
    public static func open(_ envelope: [UInt8], key: SecureBytes) throws(ProtocolError) -> [UInt8]? {
        guard envelope.first == version else { throw .unsupportedVersion(envelope.first ?? 0) }
        guard (minimumLength...maximumLength).contains(envelope.count) else { throw .malformed(what: "group envelope (length)") }
        let headLength = 1 + XChaCha20Poly1305.nonceLength
        let nonce = Array(envelope[1..<headLength])
        return try? XChaCha20Poly1305.open(envelope[headLength...], key: key, nonce: nonce, associatedData: envelope[..<headLength])
    }
}
