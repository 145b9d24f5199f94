import HushCrypto

/// SHA-256 of an envelope, carried beside it on every hop through the relay
/// (deposit, sync page, push) so that bytes damaged in transit are refused
/// and fetched or sent again instead of being mistaken for a forgery: a
/// damaged envelope fails its sealed layer, names nobody, and would be set
/// aside and acknowledged, lost without either side knowing. Not a security
/// measure (anyone can compute it); TLS is. It catches what TLS does not
/// cover or is not used for.
public enum EnvelopeDigest {
    /// The binary deposit's header: the digest in standard base64 (44 characters).
    public static let header = "Hush-Envelope-SHA256"
    public static let length = 32

    public static func of(_ envelope: [UInt8]) -> [UInt8] { SHA256.hash(envelope) }

    /// Whether `digest` (when one was sent) matches `envelope`.
    public static func matches(_ digest: [UInt8]?, _ envelope: [UInt8]) -> Bool {
        guard let digest else { return true }
        return digest == of(envelope)
    }
}
