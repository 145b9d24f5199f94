import HushCrypto

/// The proof of work a credential-less (first-contact) deposit carries, so
/// that a flood of anonymous deposits costs the flooder, not the recipient.
/// Without it five anonymous deposits held every newcomer's first message
/// for ten minutes. Specified in docs/RELAY-API.md, "First contact".
///
///     digest = SHA-256("hush/v1/first-contact" || 0x00 || mailbox (32)
///                      || len(requestID) (1) || requestID (ASCII)
///                      || SHA-256(envelope) (32) || nonce (8))
///
/// The work is done when `digest` starts with at least `bits` zero bits
/// (most significant bit of the first byte first). It binds the mailbox,
/// the request id and the envelope, so it cannot be reused for another.
public enum FirstContactWork {
    public static let label = Array("hush/v1/first-contact".utf8)
    public static let nonceLength = 8
    /// The HTTP header carrying the nonce (standard base64) in a binary deposit.
    public static let header = "Hush-Work"
    /// The header of a 428 `work_required` answer: how many zero bits the relay asks for now.
    public static let bitsHeader = "Hush-Work-Bits"

    /// Everything the digest covers except the nonce.
    public static func prefix(mailbox: [UInt8], requestID: String, envelope: [UInt8]) -> [UInt8] {
        prefix(mailbox: mailbox, requestID: requestID, envelopeDigest: SHA256.hash(envelope))
    }

    /// The same, from the envelope's SHA-256 (a fan-out hashes its envelope once, not per mailbox).
    public static func prefix(mailbox: [UInt8], requestID: String, envelopeDigest: [UInt8]) -> [UInt8] {
        let id = Array(requestID.utf8.prefix(255))
        return label + [0] + mailbox + [UInt8(id.count)] + id + envelopeDigest
    }

    public static func digest(prefix: [UInt8], nonce: [UInt8]) -> [UInt8] {
        SHA256.hash(prefix + nonce)
    }

    /// Leading zero bits of `digest`.
    public static func leadingZeroBits(_ digest: [UInt8]) -> Int {
        var bits = 0
        for byte in digest {
            if byte == 0 { bits += 8; continue }
            return bits + byte.leadingZeroBitCount
        }
        return bits
    }

    public static func isValid(nonce: [UInt8], prefix: [UInt8], bits: Int) -> Bool {
        nonce.count == nonceLength && leadingZeroBits(digest(prefix: prefix, nonce: nonce)) >= bits
    }

    /// Finds a nonce (a big-endian counter from 0): on average 2^bits hashes.
    public static func solve(mailbox: [UInt8], requestID: String, envelope: [UInt8], bits: Int) -> [UInt8] {
        let prefix = prefix(mailbox: mailbox, requestID: requestID, envelope: envelope)
        var message = prefix + [UInt8](repeating: 0, count: nonceLength)
        var counter: UInt64 = 0
        while true {
            for index in 0..<nonceLength {
                message[prefix.count + index] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64(index)))
            }
            if leadingZeroBits(SHA256.hash(message)) >= bits { return Array(message[prefix.count...]) }
            counter &+= 1
        }
    }
}
