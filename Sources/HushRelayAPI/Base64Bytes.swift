import Foundation

/// Bytes that travel in JSON as a standard base64 string (RFC 4648 §4, with
/// padding). Decoding refuses anything that is not base64, so a malformed
/// field becomes a decoding error (422), never garbage bytes.
public struct Base64Bytes: Codable, Sendable, Hashable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not base64")
        }
        self.bytes = Array(data)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(bytes).base64EncodedString())
    }
}
