import HushCrypto

/// Crockford's base32 as Hush writes codes people copy by hand (the
/// recovery key of docs/PROTOCOL.md §19.1, the link code of §20.5): alphabet
/// `0123456789ABCDEFGHJKMNPQRSTVWXYZ`, most significant bit first, the last
/// character padded with zero bits. Reading ignores case, spaces, tabs, line
/// breaks and `-`, and takes `O` for `0` and `I`, `L` for `1`.
public enum CrockfordBase32 {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// What a reader skips: spaces, tabs, line breaks and the group separator.
    public static let ignored: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r")]

    public enum Problem: Error, Equatable, Sendable {
        /// A character outside the alphabet (and the ignored and look-alike ones).
        case invalidCharacter
        /// A number of characters no byte string encodes to (5 or more bits left over).
        case wrongLength
        /// The bits left over after the last byte are not zero.
        case badPadding
    }

    /// The characters of `bytes`, without grouping.
    public static func encode(_ bytes: [UInt8]) -> [UInt8] {
        var characters: [UInt8] = []
        characters.reserveCapacity((bytes.count * 8 + 4) / 5)
        var accumulator: UInt64 = 0, bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(alphabet[Int(accumulator >> UInt64(bits) & 31)])
            }
            accumulator &= (1 << UInt64(bits)) - 1
        }
        if bits > 0 { characters.append(alphabet[Int(accumulator << UInt64(5 - bits) & 31)]) }
        return characters
    }

    /// `characters` in groups of `size` joined by `-`.
    public static func grouped(_ characters: [UInt8], size: Int) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(characters.count + characters.count / size)
        for (index, character) in characters.enumerated() {
            if index > 0 && index % size == 0 { out.append(UInt8(ascii: "-")) }
            out.append(character)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes. The caller wipes them when they are secret.
    public static func decode(_ text: String) throws(Problem) -> [UInt8] {
        var values: [UInt8] = []
        defer { ConstantTime.wipe(&values) }
        for character in text.utf8 {
            if ignored.contains(character) { continue }
            switch character {
            case UInt8(ascii: "O"), UInt8(ascii: "o"): values.append(0)
            case UInt8(ascii: "I"), UInt8(ascii: "i"), UInt8(ascii: "L"), UInt8(ascii: "l"): values.append(1)
            default:
                let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(character) ? character - 32 : character
                guard let index = alphabet.firstIndex(of: upper) else { throw .invalidCharacter }
                values.append(UInt8(index))
            }
        }
        let leftover = values.count * 5 % 8
        guard leftover < 5 else { throw .wrongLength }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 5 / 8)
        var accumulator: UInt64 = 0, bits = 0
        for value in values {
            accumulator = accumulator << 5 | UInt64(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt64(bits)))
                accumulator &= (1 << UInt64(bits)) - 1
            }
        }
        guard accumulator == 0 else {
            ConstantTime.wipe(&bytes)
            throw .badPadding
        }
        return bytes
    }
}
