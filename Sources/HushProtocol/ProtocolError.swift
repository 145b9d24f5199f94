import HushCrypto

/// Errors of the protocol layer. Messages say what failed and what to do,
/// never which byte or which internal check, and carry no key material.
public enum ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A prekey or bundle signature did not verify under the identity key.
    case invalidSignature(what: String)
    /// A structure did not decode: wrong length, unknown kind, trailing bytes.
    case malformed(what: String)
    /// The version byte names a version this implementation does not speak.
    case unsupportedVersion(UInt8)
    /// A cryptographic operation failed (authentication, bad key).
    case crypto(CryptoError)

    public var description: String {
        switch self {
        case let .invalidSignature(what):
            return "the signature on the \(what) does not verify: the bundle was altered or does not belong to this identity"
        case let .malformed(what):
            return "malformed \(what)"
        case let .unsupportedVersion(version):
            return "unsupported protocol version \(version): update Hush"
        case let .crypto(error):
            return error.description
        }
    }
}
