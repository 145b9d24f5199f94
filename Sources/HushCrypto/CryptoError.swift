/// Errors of the crypto layer. None carries key material, plaintext or the
/// detail of which internal check failed: an authentication failure is one
/// case whatever went wrong (tag, associated data, truncation).
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A ciphertext, MAC or signature did not verify.
    case authenticationFailed
    /// A public or private key was rejected (wrong size, or a point that
    /// yields no usable shared secret, such as a low-order X25519 point).
    case invalidKey
    /// An input had the wrong length.
    case invalidLength(what: String, expected: Int, actual: Int)
    /// A cost or size parameter lies outside what this code accepts.
    case parametersOutOfBounds(String)
    /// libsodium reported an internal failure (out of memory, say).
    case libraryFailure(String)

    public var description: String {
        switch self {
        case .authenticationFailed:
            return "authentication failed: the data was tampered with, truncated, or used with the wrong key"
        case .invalidKey:
            return "invalid key"
        case let .invalidLength(what, expected, actual):
            return "invalid length for \(what): expected \(expected) bytes, got \(actual)"
        case let .parametersOutOfBounds(detail):
            return "parameters out of bounds: \(detail)"
        case let .libraryFailure(operation):
            return "libsodium failed in \(operation)"
        }
    }
}

/// `what` is an autoclosure so that callers can name the input with string
/// interpolation without paying for it on the success path (building
/// "\(name) key" on every seal cost about 100 ns, a sixth of a 1 KiB seal).
@inline(__always)
func requireLength(_ actual: Int, _ expected: Int, _ what: @autoclosure () -> String) throws(CryptoError) {
    guard actual == expected else {
        throw CryptoError.invalidLength(what: what(), expected: expected, actual: actual)
    }
}
