/// Lower-case hexadecimal, for public values (keys, digests, vectors) only.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func encode<D: ContiguousByteStorage>(_ bytes: D) -> String {
        bytes.withUnsafeBytes { buffer in
            var out = [UInt8]()
            out.reserveCapacity(buffer.count * 2)
            for byte in buffer {
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0f)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    public static func decode(_ text: String) throws(CryptoError) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else {
            throw .invalidLength(what: "hex string", expected: utf8.count + 1, actual: utf8.count)
        }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else {
                throw .parametersOutOfBounds("not a hexadecimal string")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
