import HushCrypto
import HushProtocol

/// The key that opens an account's backup archives (docs/PROTOCOL.md §19.1):
/// 32 random bytes, made when the account is created and kept in its
/// keystore, shown to the user once to write down.
///
/// Its written form is 56 characters of Crockford base32 in 14 groups of
/// four, `XXXX-XXXX-…`: the 32 bytes followed by a 3-byte checksum, so a
/// mistyped character is caught before any archive is tried. Reading
/// ignores case, spaces and dashes, and takes `O` for `0` and `I`/`L` for `1`.
///
/// Its `description` is redacted: `displayText` is the only way to the key's
/// text, so it never reaches a log by accident.
public struct RecoveryKey: Sendable, CustomStringConvertible {
    /// The number of random bytes in a key.
    public static let length = 32
    static let checksumLength = 3
    static let characterCount = (length + checksumLength) * 8 / 5

    let bytes: SecureBytes

    init(bytes: SecureBytes) {
        precondition(bytes.count == Self.length)
        self.bytes = bytes
    }

    /// A new key from the system's random source.
    static func generate() -> RecoveryKey {
        RecoveryKey(bytes: SecureBytes(randomCount: length, storage: .guarded))
    }

    /// Reads a key as the user wrote it down.
    ///
    /// - Throws: `HushError` of kind `invalidInput` when the text is not a
    ///   recovery key: a character outside the alphabet, too few or too many
    ///   characters, or a checksum that does not match (a typo).
    public init(parsing text: String) throws(HushError) {
        var decoded: [UInt8]
        do { decoded = try CrockfordBase32.decode(text) } catch {
            guard error != .invalidCharacter else {
                throw HushError(.invalidInput, reason: "this is not a recovery key: it holds a character that is not in one",
                                suggestion: "a recovery key has 14 groups of four letters and digits, XXXX-XXXX-…; copy it again")
            }
            throw Self.wrongLength(text)
        }
        defer { ConstantTime.wipe(&decoded) }
        guard decoded.count == Self.length + Self.checksumLength else { throw Self.wrongLength(text) }
        let key = SecureBytes(copying: decoded[0..<Self.length], storage: .guarded)
        guard ConstantTime.equals(decoded[Self.length...], Self.checksum(of: key)) else {
            throw HushError(.invalidInput, reason: "the recovery key has a typo: its checksum does not match",
                            suggestion: "compare it with the one you wrote down, group by group")
        }
        self.init(bytes: key)
    }

    /// A text with the wrong number of letters and digits (56 encode exactly the key and its checksum).
    private static func wrongLength(_ text: String) -> HushError {
        let count = text.utf8.filter { !CrockfordBase32.ignored.contains($0) }.count
        return HushError(.invalidInput, reason: "this is not a recovery key: it has \(count) letters and digits, a recovery key has \(characterCount)",
                         suggestion: "a recovery key has 14 groups of four, XXXX-XXXX-…; copy it again")
    }

    /// The first three bytes of SHA-256 of the key.
    static func checksum(of key: SecureBytes) -> [UInt8] {
        Array(SHA256.hash(key).prefix(checksumLength))
    }

    /// The key's written form: 14 groups of four characters joined by dashes.
    /// A secret: show it to the user, never log it.
    public var displayText: String {
        var input = bytes.copyBytes() + Self.checksum(of: bytes)
        var characters = CrockfordBase32.encode(input)
        defer { ConstantTime.wipe(&input); ConstantTime.wipe(&characters) }
        return CrockfordBase32.grouped(characters, size: 4)
    }

    /// Redacted, so the key never reaches a log or an error by accident.
    public var description: String { "RecoveryKey(redacted)" }
}
