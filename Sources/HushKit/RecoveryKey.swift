import HushCrypto

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
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
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
        var values: [UInt8] = []
        for character in text.uppercased().utf8 {
            switch character {
            case UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
            case UInt8(ascii: "O"): values.append(0)
            case UInt8(ascii: "I"), UInt8(ascii: "L"): values.append(1)
            default:
                guard let index = Self.alphabet.firstIndex(of: character) else {
                    throw HushError(.invalidInput, reason: "this is not a recovery key: it holds a character that is not in one",
                                    suggestion: "a recovery key has 14 groups of four letters and digits, XXXX-XXXX-…; copy it again")
                }
                values.append(UInt8(index))
            }
        }
        guard values.count == Self.characterCount else {
            ConstantTime.wipe(&values)
            throw HushError(.invalidInput, reason: "this is not a recovery key: it has \(values.count) letters and digits, a recovery key has \(Self.characterCount)",
                            suggestion: "a recovery key has 14 groups of four, XXXX-XXXX-…; copy it again")
        }
        var decoded = [UInt8](repeating: 0, count: Self.length + Self.checksumLength)
        var accumulator: UInt64 = 0, bits = 0, index = 0
        for value in values {
            accumulator = accumulator << 5 | UInt64(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                decoded[index] = UInt8(truncatingIfNeeded: accumulator >> UInt64(bits))
                index += 1
            }
        }
        ConstantTime.wipe(&values)
        let key = SecureBytes(copying: decoded[0..<Self.length], storage: .guarded)
        let checksum = Array(decoded[Self.length...])
        ConstantTime.wipe(&decoded)
        guard ConstantTime.equals(checksum, Self.checksum(of: key)) else {
            throw HushError(.invalidInput, reason: "the recovery key has a typo: its checksum does not match",
                            suggestion: "compare it with the one you wrote down, group by group")
        }
        self.init(bytes: key)
    }

    /// The first three bytes of SHA-256 of the key.
    static func checksum(of key: SecureBytes) -> [UInt8] {
        Array(SHA256.hash(key).prefix(checksumLength))
    }

    /// The key's written form: 14 groups of four characters joined by dashes.
    /// A secret: show it to the user, never log it.
    public var displayText: String {
        var input = bytes.copyBytes() + Self.checksum(of: bytes)
        defer { ConstantTime.wipe(&input) }
        var characters: [UInt8] = []
        var accumulator: UInt64 = 0, bits = 0
        for byte in input {
            accumulator = accumulator << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(Self.alphabet[Int(accumulator >> UInt64(bits) & 31)])
                if characters.count % 5 == 4 && characters.count < Self.characterCount + Self.characterCount / 4 - 1 {
                    characters.append(UInt8(ascii: "-"))
                }
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Redacted, so the key never reaches a log or an error by accident.
    public var description: String { "RecoveryKey(redacted)" }
}
