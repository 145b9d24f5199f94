/// Every bound an attacker (or a misbehaving peer) could push on, as named
/// constants in the manner of libsignal's consts.rs. Receivers MUST enforce them.
public enum RatchetLimits {
    /// The most message keys one incoming message may make the receiver skip
    /// (derive and store) in one chain, and across the two chains of a DH step.
    public static let maxForwardJump = 1_000
    /// The most skipped message keys kept for one receiving chain; the oldest go first.
    public static let maxSkippedKeysPerChain = 1_000
    /// The most skipped message keys kept for one session; the oldest go first.
    public static let maxSkippedKeysTotal = 2_000
    /// The most receiving chains (header keys) with skipped keys kept per
    /// session. Every turn of a conversation starts a chain, so this is how
    /// many turns late a delayed message may arrive and still open (a
    /// message held in its sender's outbox through an outage, say).
    public static let maxSkippedChains = 50
    /// Seconds a skipped message key is kept at most: the relay's retention,
    /// after which the envelope it would open has expired anyway.
    public static let maxSkippedKeyAgeSeconds: Int64 = 30 * 24 * 3600
}

/// The ratchet's own constants (docs/PROTOCOL.md, "Double Ratchet").
public enum RatchetConstants {
    /// HMAC-SHA256(CK, 0x01) is the message key, as in the Double Ratchet specification.
    public static let messageKeyConstant: UInt8 = 0x01
    /// HMAC-SHA256(CK, 0x02) is the next chain key.
    public static let chainKeyConstant: UInt8 = 0x02
    /// HMAC-SHA256(CK, 0x03)[0..<24] is the header nonce (header keys serve a whole chain).
    public static let headerNonceConstant: UInt8 = 0x03
    /// ratchet key (32) || previous chain length PN (4) || message number N (4).
    public static let headerLength = 40
    /// nonce (24) || sealed header (40 + 16).
    public static let encryptedHeaderLength = 24 + headerLength + 16
    public static let tagLength = 16
}
