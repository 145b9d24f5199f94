import HushCrypto
import HushProtocol

/// Vectors/protocol/content.json: the encoding of each content type.
public struct ContentSuite: VectorSuite {
    public let name = "hush-content"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let encoded = try fields.hex("encoded")
        if testCase["valid"] as? Bool == false {
            do {
                _ = try Content(decoding: encoded)
                throw VectorFailure("invalid content '\(try fields.string("comment"))' was accepted")
            } catch is ProtocolError {}
            return
        }
        let content = try Content(decoding: encoded)
        try expectEqual(Int(content.body.typeByte), try fields.int("type"), "type")
        try expectHex(content.id.bytes, try fields.hex("message_id"), "message id")
        try expectHex(try content.encoded(), encoded, "re-encoding")
    }
}
