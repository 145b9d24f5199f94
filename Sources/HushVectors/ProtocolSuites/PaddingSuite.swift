import HushCrypto
import HushProtocol

/// Vectors/protocol/padding.json: content length -> padded length, and the
/// exact padded bytes (content is `length` bytes of 0x61).
public struct PaddingSuite: VectorSuite {
    public let name = "hush-padding"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let length = try fields.int("content_length")
        try expectEqual(Padding.paddedLength(forContentLength: length), try fields.int("padded_length"), "padded length")
        let content = [UInt8](repeating: 0x61, count: length)
        let padded = try Padding.pad(content)
        try expectEqual(SHA256.hash(padded), try fields.hex("padded_sha256"), "SHA-256 of the padded bytes")
        try expectHex(try Padding.unpad(padded), content, "unpadded")
    }
}
