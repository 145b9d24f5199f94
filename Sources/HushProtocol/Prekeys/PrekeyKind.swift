/// The four kinds of prekey a user publishes. The raw value is part of every
/// prekey signature (domain separation), so a key signed as one kind can never
/// be presented as another.
public enum PrekeyKind: UInt8, Sendable, CaseIterable, Codable {
    /// The medium-term X25519 prekey (rotated; used when no one-time key is left).
    case signedX25519 = 1
    /// A single-use X25519 prekey.
    case oneTimeX25519 = 2
    /// The ML-KEM-768 last-resort prekey (rotated; used when no one-time KEM key is left).
    case lastResortKEM = 3
    /// A single-use ML-KEM-768 prekey.
    case oneTimeKEM = 4

    /// X25519 public keys are 32 bytes; ML-KEM-768 encapsulation keys 1184 (FIPS 203).
    public var publicKeyLength: Int {
        switch self {
        case .signedX25519, .oneTimeX25519: return 32
        case .lastResortKEM, .oneTimeKEM: return 1184
        }
    }

    public var isOneTime: Bool { self == .oneTimeX25519 || self == .oneTimeKEM }
}
