import HushCrypto

/// A self-certifying, copy-pastable address: bech32 (BIP-173) with the
/// human-readable part "hush" over `version (0x01) || identity key (32 bytes)`,
/// 64 characters, for example `hush1qy…`. Since the address *is* the identity
/// key, a relay cannot hand out a bundle for another key without the
/// initiator noticing (`PrekeyBundle.verify(for:)`).
public struct HushAddress: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    public static let humanReadablePart = "hush"
    public static let version: UInt8 = 0x01
    /// 4 (hrp) + 1 (separator) + 53 (33 bytes in 5-bit groups) + 6 (checksum).
    public static let encodedLength = 64

    public let identityKey: IdentityKey

    public init(identityKey: IdentityKey) {
        self.identityKey = identityKey
    }

    /// Decodes strictly. Upper-case addresses are accepted (BIP-173 allows it,
    /// and QR codes use it); mixed case, a wrong prefix, a bad checksum, a
    /// wrong length, non-zero padding, an unknown version or an invalid key are refused.
    public init(parsing text: String) throws(ProtocolError) {
        let (hrp, data) = try Bech32.decode(text)
        guard hrp == HushAddress.humanReadablePart else { throw .invalidAddress(.wrongPrefix) }
        guard text.utf8.count == HushAddress.encodedLength else { throw .invalidAddress(.wrongLength) }
        guard let bytes = Bech32.convertBits(data, from: 5, to: 8, pad: false) else { throw .invalidAddress(.badPadding) }
        guard bytes.count == 1 + IdentityKey.length else { throw .invalidAddress(.wrongLength) }
        guard bytes[0] == HushAddress.version else { throw .invalidAddress(.unsupportedVersion) }
        let key: IdentityKey
        do { key = try IdentityKey(rawRepresentation: Array(bytes[1...])) } catch { throw .invalidAddress(.invalidKey) }
        // An identity key that has no X25519 counterpart (small order,
        // non-canonical) cannot take part in a handshake: refuse it here.
        do { _ = try key.agreementKey() } catch { throw .invalidAddress(.invalidKey) }
        self.identityKey = key
    }

    public init?(_ description: String) {
        guard let address = try? HushAddress(parsing: description) else { return nil }
        self = address
    }

    /// The canonical lower-case form.
    public var description: String {
        let data = Bech32.convertBits([HushAddress.version] + identityKey.rawRepresentation, from: 8, to: 5, pad: true)!
        return Bech32.encode(hrp: HushAddress.humanReadablePart, data: data)
    }
}

extension IdentityKey {
    /// This identity's address.
    public var address: HushAddress { HushAddress(identityKey: self) }
}
