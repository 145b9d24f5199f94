import HushCrypto

/// The one-time code that links a new device to an account (docs/PROTOCOL.md
/// §20.5): a fresh 32-byte secret and the relay's URL, shown by a device of
/// the account and typed (or scanned) on the new one.
///
///     payload = 0x01 || secret (32) || relay length (u8: 0…200) || relay (ASCII 0x21…0x7E)
///     code    = payload || SHA-256("hush/v1/link-code" 0x00 || payload)[0..<4]
///
/// written in Crockford base32 in groups of four joined by `-`: a typo fails
/// the checksum before anything is sent. The secret keys the link (`LinkKeys`),
/// so the code is a secret: `displayText` is the only way to its text, and
/// `description` is redacted.
public struct LinkCode: Sendable, CustomStringConvertible {
    public static let version: UInt8 = 0x01
    public static let secretLength = 32
    public static let checksumLength = 4
    public static let maxRelayLength = 200
    /// version || secret || relay length || checksum, with no relay.
    public static let minimumLength = 1 + secretLength + 1 + checksumLength

    public let secret: SecureBytes
    /// The relay both devices use, as the existing device reaches it; empty when told another way.
    public let relay: String

    public init(secret: SecureBytes, relay: String) throws(ProtocolError) {
        guard secret.count == Self.secretLength else { throw .malformed(what: "link secret (32 bytes)") }
        try Self.checkRelay(Array(relay.utf8))
        self.secret = secret
        self.relay = relay
    }

    /// A new code with a fresh secret. Production callers pass `SystemRandom()`.
    public static func generate(relay: String, using source: any RandomSource = SystemRandom()) throws(ProtocolError) -> LinkCode {
        try LinkCode(secret: SecureBytes(randomCount: secretLength, using: source, storage: .guarded), relay: relay)
    }

    /// The code's bytes: payload then checksum. A secret (wipe after use).
    public var bytes: [UInt8] {
        var payload: [UInt8] = [Self.version]
        secret.withUnsafeBytes { payload.append(contentsOf: $0) }
        let relayBytes = Array(relay.utf8)
        payload.append(UInt8(relayBytes.count))
        payload += relayBytes
        return payload + Self.checksum(of: payload)
    }

    /// The written form, e.g. `04ZK-…`; a secret: show it to the user, never log it.
    public var displayText: String {
        var raw = bytes
        var characters = CrockfordBase32.encode(raw)
        defer { ConstantTime.wipe(&raw); ConstantTime.wipe(&characters) }
        return CrockfordBase32.grouped(characters, size: 4)
    }

    /// Reads a code as the user typed it, in the order of §20.5; the first
    /// failing step is the problem (`invalidLinkCode`).
    public init(parsing text: String) throws(ProtocolError) {
        var raw: [UInt8]
        do { raw = try CrockfordBase32.decode(text) } catch {
            switch error {
            case .invalidCharacter: throw .invalidLinkCode(.invalidCharacter)
            case .wrongLength: throw .invalidLinkCode(.wrongLength)
            case .badPadding: throw .invalidLinkCode(.badPadding)
            }
        }
        defer { ConstantTime.wipe(&raw) }
        guard raw.count >= Self.minimumLength else { throw .invalidLinkCode(.wrongLength) }
        var payload = Array(raw[..<(raw.count - Self.checksumLength)])
        defer { ConstantTime.wipe(&payload) }
        guard ConstantTime.equals(raw[(raw.count - Self.checksumLength)...], Self.checksum(of: payload)) else {
            throw .invalidLinkCode(.badChecksum)
        }
        guard payload[0] == Self.version else { throw .invalidLinkCode(.unsupportedVersion) }
        let relayLength = Int(payload[1 + Self.secretLength])
        guard payload.count == 1 + Self.secretLength + 1 + relayLength else { throw .invalidLinkCode(.wrongLength) }
        let relayBytes = Array(payload[(2 + Self.secretLength)...])
        try Self.checkRelay(relayBytes)
        secret = SecureBytes(copying: payload[1..<(1 + Self.secretLength)], storage: .guarded)
        relay = String(decoding: relayBytes, as: UTF8.self)
    }

    /// The relay: at most 200 bytes of printable ASCII without spaces.
    private static func checkRelay(_ bytes: [UInt8]) throws(ProtocolError) {
        guard bytes.count <= maxRelayLength, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { throw .invalidLinkCode(.badRelay) }
    }

    /// SHA-256("hush/v1/link-code" 0x00 || payload), first 4 bytes.
    static func checksum(of payload: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(Labels.linkCode + payload).prefix(checksumLength))
    }

    /// The keys the code's secret gives (§20.6).
    public func keys() throws(ProtocolError) -> LinkKeys { try LinkKeys(secret: secret) }

    public var description: String { "LinkCode(redacted, relay \(relay.isEmpty ? "none" : relay))" }
}
