/// What every deposit, single or fan-out, must satisfy before any mailbox is
/// looked at: one place for the rules, so the two forms cannot drift apart.
public enum DepositRules {
    /// Why a deposit request is refused as a whole.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// 422 `malformed`.
        case malformed(String)
        /// 413 `too_large`.
        case tooLarge(String)
        /// 400 `digest_mismatch`.
        case digestMismatch

        public var description: String {
            switch self {
            case let .malformed(what), let .tooLarge(what): what
            case .digestMismatch: "the envelope does not match its SHA-256"
            }
        }
    }

    /// The request id (`RequestIDRules`), the envelope's size (the protocol's
    /// bounds: shorter is malformed, longer too large) and, when sent, its
    /// SHA-256 (`EnvelopeDigest`; `digestName` is the field or header it came in).
    public static func check(requestID: String, envelope: [UInt8], digest: [UInt8]?, digestName: String) throws(Problem) {
        guard RequestIDRules.isValid(requestID) else { throw .malformed("requestID must be 1…64 of [A-Za-z0-9_-]") }
        guard envelope.count >= RelayLimits.minEnvelopeBytes else {
            throw .malformed("the envelope is shorter than \(RelayLimits.minEnvelopeBytes) bytes, the smallest sealed envelope")
        }
        guard envelope.count <= RelayLimits.maxEnvelopeBytes else { throw .tooLarge("the envelope") }
        if let digest {
            guard digest.count == EnvelopeDigest.length else { throw .malformed("\(digestName) is a 32-byte SHA-256") }
            guard EnvelopeDigest.matches(digest, envelope) else { throw .digestMismatch }
        }
    }
}
