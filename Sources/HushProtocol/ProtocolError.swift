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
    /// A `hush1…` address did not decode; the problem says why, so the user can fix a typo.
    case invalidAddress(AddressProblem)
    /// A message did not decrypt: altered, replayed, truncated, or not for
    /// this session. The session is unchanged and can read the next message.
    case decryptionFailed
    /// An authenticated message claims more skipped messages than the bounds
    /// allow. The session is unchanged.
    case messageGapTooLarge
    /// The sender identity inside a sealed envelope is not the session's peer.
    case senderMismatch
    /// A bundle's identity key is not the one the contact's address names.
    case identityMismatch
    /// A value is larger than the protocol allows.
    case limitExceeded(what: String)
    /// The skipped-message-key store failed.
    case storage(String)
    /// The session cannot send: its counters are exhausted, or it was never completed.
    case sessionUnusable(String)
    /// A device list was refused (docs/PROTOCOL.md §20.3); the problem names the rule.
    case deviceListRefused(DeviceListProblem)
    /// A link code did not read (§20.5); the problem says why, so the user can fix a typo.
    case invalidLinkCode(LinkCodeProblem)
    /// An account's directory record at the relay did not hold its list (§20.9).
    case directoryRecordRefused(DirectoryRecordProblem)

    /// Why an address was refused.
    public enum AddressProblem: String, Sendable, Equatable {
        case mixedCase = "mixes upper- and lower-case letters"
        case invalidCharacter = "contains a character that is not in the bech32 alphabet"
        case missingSeparator = "has no '1' separator"
        case wrongPrefix = "does not start with 'hush1'"
        case wrongLength = "has the wrong length"
        case badChecksum = "has a bad checksum (a typo?)"
        case badPadding = "has non-zero padding bits"
        case unsupportedVersion = "has an unsupported address version"
        case invalidKey = "does not contain a valid identity key"
    }

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
        case let .invalidAddress(problem):
            return "invalid Hush address: it \(problem.rawValue); check that it was copied completely"
        case .decryptionFailed:
            return "a message could not be decrypted (altered, replayed, or not for this session); it was dropped and the session is unchanged"
        case .messageGapTooLarge:
            return "a message claims more skipped messages than Hush keeps keys for; it was dropped and the session is unchanged"
        case .senderMismatch:
            return "a message names a sender other than this session's contact; it was dropped"
        case .identityMismatch:
            return "the prekey bundle does not belong to the identity in the contact's address: the relay may be substituting keys"
        case let .limitExceeded(what):
            return "\(what) is larger than the protocol allows"
        case let .storage(detail):
            return "the skipped-message-key store failed: \(detail)"
        case let .sessionUnusable(detail):
            return "the session cannot be used: \(detail); start a new session"
        case let .deviceListRefused(problem):
            return "a device list was refused: \(problem.explanation); the devices known before are kept"
        case let .invalidLinkCode(problem):
            return "invalid link code: it \(problem.explanation)"
        case let .directoryRecordRefused(problem):
            return "the account's device directory at the relay was refused: it \(problem.explanation); the devices known before are kept"
        }
    }
}
