import HushCrypto
@_spi(Vectors) import HushProtocol

/// Vectors/protocol/attachment.json: a file sealed into an attachment blob
/// with a fixed key and header (docs/PROTOCOL.md §10.3). Sealing must give the
/// exact bytes; opening them, fed in uneven pieces, must give the file back.
public struct AttachmentSuite: VectorSuite {
    public let name = "hush-attachment"
    public init() {}

    /// The file of a case: `plaintext` when given, else `plaintext_length` bytes where byte i is i mod 251.
    static func plaintext(_ fields: CaseFields) throws -> [UInt8] {
        if let given = try fields.optionalHex("plaintext") { return given }
        return (0..<(try fields.int("plaintext_length"))).map { UInt8($0 % 251) }
    }

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let file = try Self.plaintext(fields)
        let key = SecureBytes(copying: try fields.hex("key"))
        let sealer = try AttachmentSealer(key: key, plaintextSize: UInt64(file.count), fixedHeader: try fields.hex("header"))
        let sealed = try sealer.sealAll(file)
        if let expected = try fields.optionalHex("sealed") { try expectHex(sealed, expected, "sealed bytes") }
        try expectHex(SHA256.hash(sealed), try fields.hex("sealed_sha256"), "SHA-256 of the sealed bytes")
        try expectEqual(Int(sealer.blobLength), try fields.int("blob_length"), "blob length")
        let blob = sealed + [UInt8](repeating: 0, count: Int(sealer.paddingLength))
        try expectHex(try sealer.digest(), try fields.hex("digest"), "digest")
        try expectHex(SHA256.hash(blob), try fields.hex("digest"), "SHA-256 of the blob")

        let opener = try AttachmentOpener(key: key, plaintextSize: UInt64(file.count), digest: try fields.hex("digest"))
        var opened: [UInt8] = []
        var position = 0
        while position < blob.count {
            let end = min(position + 10_007, blob.count)
            opened += try opener.consume(Array(blob[position..<end]))
            position = end
        }
        try opener.finish()
        try expectHex(opened, file, "opened file")
    }
}
