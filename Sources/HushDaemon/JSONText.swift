/// A `JSONValue` as one line of compact JSON, written by hand: the very
/// bytes `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes`
/// (keys in the order of their UTF-8 bytes, the same escapes), without
/// going through `Encodable`.
///
/// The daemon encodes every message it sends, and `hush chats` through it
/// sends its 150 KiB of output as `cli.output` notifications: JSONEncoder
/// was 5 % of the daemon's time for that command (perf, 2,000 conversations).
/// A number that is not a whole one is left to JSONEncoder (nil here), whose
/// way of writing fractions this does not copy.
enum JSONText {
    static func line(_ value: JSONValue) -> String? {
        var bytes: [UInt8] = []
        guard write(value, into: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func write(_ value: JSONValue, into bytes: inout [UInt8]) -> Bool {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case let .bool(flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case let .number(number):
            // What JSONValue.encode writes as an integer; anything else is JSONEncoder's to write.
            guard number.rounded() == number, abs(number) < 9.007_199_254_740_992e15 else { return false }
            bytes.append(contentsOf: String(Int64(number)).utf8)
        case let .string(text): writeString(text, into: &bytes)
        case let .array(elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                guard write(element, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                guard write(fields[key]!, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        }
        return true
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func writeString(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            bytes.reserveCapacity(bytes.count + utf8.count + 1)
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                // Everything from 0x20 up but the quote and the backslash goes as it is (the slash too).
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
                case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
                case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
                case 0x0c: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
                case 0x0a: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
                case 0x0d: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0f)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
