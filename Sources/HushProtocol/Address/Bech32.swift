/// Bech32 as in BIP-173 (the original constant 1, not bech32m): a
/// human-readable part, the separator '1', 5-bit data characters and a
/// 6-character BCH checksum that detects any error in up to four characters.
enum Bech32 {
    static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    /// BIP-173's overall limit.
    static let maximumLength = 90
    static let checksumLength = 6

    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = Int8(index) }
        return table
    }()

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3b6a_57b2, 0x2650_8e6d, 0x1ea1_19fa, 0x3d42_33dd, 0x2a14_62b3]
        var chk: UInt32 = 1
        for value in values {
            let top = chk >> 25
            chk = (chk & 0x1ff_ffff) << 5 ^ UInt32(value)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    private static func expand(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    /// Encodes 5-bit `data` under the lower-case `hrp`.
    static func encode(hrp: String, data: [UInt8]) -> String {
        let h = Array(hrp.utf8)
        let mod = polymod(expand(h) + data + [UInt8](repeating: 0, count: checksumLength)) ^ 1
        let checksum = (0..<checksumLength).map { UInt8((mod >> UInt32(5 * (5 - $0))) & 31) }
        return String(decoding: h + [UInt8(ascii: "1")] + (data + checksum).map { alphabet[Int($0)] }, as: UTF8.self)
    }

    /// Decodes strictly: one case throughout, known characters, valid checksum.
    /// Returns the lower-cased hrp and the 5-bit data without the checksum.
    static func decode(_ text: String) throws(ProtocolError) -> (hrp: String, data: [UInt8]) {
        let chars = Array(text.utf8)
        guard chars.count <= maximumLength else { throw .invalidAddress(.wrongLength) }
        var hasLower = false, hasUpper = false
        for c in chars {
            guard c >= 33, c <= 126 else { throw .invalidAddress(.invalidCharacter) }
            if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z") { hasLower = true }
            if c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") { hasUpper = true }
        }
        guard !(hasLower && hasUpper) else { throw .invalidAddress(.mixedCase) }
        let lower = chars.map { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")) else { throw .invalidAddress(.missingSeparator) }
        guard separator >= 1, lower.count - separator - 1 >= checksumLength else { throw .invalidAddress(.wrongLength) }
        let hrp = Array(lower[..<separator])
        var values = [UInt8]()
        values.reserveCapacity(lower.count - separator - 1)
        for c in lower[(separator + 1)...] {
            let v = c < 128 ? reverse[Int(c)] : -1
            guard v >= 0 else { throw .invalidAddress(.invalidCharacter) }
            values.append(UInt8(v))
        }
        guard polymod(expand(hrp) + values) == 1 else { throw .invalidAddress(.badChecksum) }
        return (String(decoding: hrp, as: UTF8.self), Array(values.dropLast(checksumLength)))
    }

    /// Regroups bits (8 -> 5 with zero padding, or 5 -> 8 strictly: at most
    /// four padding bits, all zero).
    static func convertBits(_ data: [UInt8], from: Int, to: Int, pad: Bool) -> [UInt8]? {
        var acc = 0, bits = 0
        var out = [UInt8]()
        let maxValue = (1 << to) - 1
        for value in data {
            guard Int(value) >> from == 0 else { return nil }
            acc = (acc << from) | Int(value)
            bits += from
            while bits >= to {
                bits -= to
                out.append(UInt8((acc >> bits) & maxValue))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((acc << (to - bits)) & maxValue)) }
        } else if bits >= from || (acc << (to - bits)) & maxValue != 0 {
            return nil
        }
        return out
    }
}
