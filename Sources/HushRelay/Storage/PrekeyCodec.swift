import HushProtocol

/// How the SQL driver stores a signed prekey in one column:
/// kind (1) || id (4, BE) || signature (64) || public key.
package enum PrekeyCodec {
    package static func encode(_ prekey: SignedPrekey) -> [UInt8] {
        [prekey.kind.rawValue] + withUnsafeBytes(of: prekey.id.bigEndian, Array.init) + prekey.signature + prekey.publicKey
    }

    package static func decode(_ bytes: [UInt8]) throws -> SignedPrekey {
        guard bytes.count > 69, let kind = PrekeyKind(rawValue: bytes[0]) else {
            throw RelayError.internalFailure("stored prekey does not decode")
        }
        let id = bytes[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return try SignedPrekey(kind: kind, id: id, publicKey: Array(bytes[69...]), signature: Array(bytes[5..<69]))
    }
}
