import HushCrypto

/// Vectors/protocol/backup.json (docs/PROTOCOL.md §19): a recovery key's
/// written form, and a small archive in each format version read here from
/// the specification alone (not with HushKit's reader, which wrote it): its
/// header and MAC, every record's plaintext (and from version 2 its clear
/// bytes) in order, the end record; a cut, a changed byte and a wrong key
/// must each be refused, and so must every archive a case lists as refused
/// (records swapped, dropped, repeated, cut, clear bytes changed or moved).
public struct BackupSuite: VectorSuite {
    public let name = "hush-backup"
    public init() {}

    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// §19.1: the written form back to the 32 key bytes, the checksum checked.
    static func recoveryKey(fromText text: String) throws -> [UInt8] {
        var bits: [UInt8] = []
        for character in text.uppercased().utf8 where character != UInt8(ascii: "-") && character != UInt8(ascii: " ") {
            let mapped: UInt8 = character == UInt8(ascii: "O") ? UInt8(ascii: "0")
                : (character == UInt8(ascii: "I") || character == UInt8(ascii: "L")) ? UInt8(ascii: "1") : character
            guard let value = alphabet.firstIndex(of: mapped) else { throw VectorFailure("recovery key: a character outside the alphabet") }
            for shift in stride(from: 4, through: 0, by: -1) { bits.append(UInt8(value >> shift & 1)) }
        }
        guard bits.count == 280 else { throw VectorFailure("recovery key: \(bits.count / 5) characters, not 56") }
        let bytes = (0..<35).map { index in bits[index * 8..<index * 8 + 8].reduce(UInt8(0)) { $0 << 1 | $1 } }
        let key = Array(bytes[0..<32])
        guard Array(SHA256.hash(key).prefix(3)) == Array(bytes[32...]) else { throw VectorFailure("recovery key: checksum does not match") }
        return key
    }

    /// §19.2–19.3: the header's fields and every record's (type, body), the end record checked.
    static func read(_ archive: [UInt8], key: [UInt8]) throws -> (identityKey: [UInt8], createdAt: Int, records: [(UInt8, [UInt8])]) {
        guard archive.count >= 138, Array(archive[0..<8]) == Array("HUSHBKUP".utf8), archive[8] == 0, archive[9] == 1 || archive[9] == 2 else {
            throw VectorFailure("header: magic or version")
        }
        // Version 2 frames each record with the length of its clear bytes too.
        let version = Int(archive[9]), frame = version == 1 ? 4 : 8
        let salt = Array(archive[50..<82])
        let streamKey = try HKDF.deriveKey(inputKeyMaterial: key, salt: salt, info: Array("hush/v1/backup-stream".utf8) + [0], length: 32)
        let macKey = try HKDF.deriveKey(inputKeyMaterial: key, salt: salt, info: Array("hush/v1/backup-header".utf8) + [0], length: 32)
        guard HMACSHA256.isValid(tag: Array(archive[106..<138]), for: Array(archive[0..<106]), key: macKey) else {
            throw VectorFailure("header MAC does not verify")
        }
        let puller = try SecretStream.Puller(key: streamKey, header: Array(archive[82..<106]))
        var records: [(UInt8, [UInt8])] = []
        var offset = 138
        while true {
            guard archive.count - offset >= frame else { throw VectorFailure("archive ends before its end record") }
            let length = archive[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let clearLength = archive[offset + 4..<offset + frame].reduce(0) { $0 << 8 | Int($1) }
            offset += frame
            guard length <= 1 << 20, clearLength <= 1 << 20, archive.count - offset >= length + clearLength else {
                throw VectorFailure("record cut short")
            }
            let clear = Array(archive[offset + length..<offset + length + clearLength])
            let (plaintext, tag) = try puller.pull(Array(archive[offset..<offset + length]), associatedData: clear)
            offset += length + clearLength
            guard let type = plaintext.first else { throw VectorFailure("empty record") }
            // Clear bytes come with type 7 alone, whose sealed body is empty; they are its body.
            guard (type == 7) == (clearLength > 0), type != 7 || plaintext.count == 1 else { throw VectorFailure("clear bytes out of place") }
            if type == 7 {
                records.append((type, clear))
                continue
            }
            if tag == .final {
                guard type == 0x7F, plaintext.count == 9 else { throw VectorFailure("the final record is not an end record") }
                let count = plaintext[1...].reduce(0) { $0 << 8 | Int($1) }
                guard count == records.count, offset == archive.count else { throw VectorFailure("end record count or trailing bytes") }
                break
            }
            records.append((type, Array(plaintext.dropFirst())))
        }
        let createdAt = archive[42..<50].reduce(0) { $0 << 8 | Int($1) }
        return (Array(archive[10..<42]), createdAt, records)
    }

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let key = try fields.hex("recovery_key")
        try expectHex(try Self.recoveryKey(fromText: try fields.string("recovery_key_text")), key, "recovery key from its written form")
        let archive = try fields.hex("archive")
        let (identityKey, createdAt, records) = try Self.read(archive, key: key)
        try expectHex(identityKey, try fields.hex("identity_key"), "identity key in the header")
        try expectEqual(createdAt, try fields.int("created_at"), "created at")
        let expected = try fields.list("records")
        try expectEqual(records.count, expected.count, "number of records")
        for (index, (record, wanted)) in zip(records, expected).enumerated() {
            let wantedFields = CaseFields(wanted)
            try expectEqual(Int(record.0), try wantedFields.int("type"), "record \(index + 1) type")
            try expectHex(record.1, try wantedFields.hex("body"), "record \(index + 1) body")
        }
        guard let identity = records.first, identity.0 == 1, identity.1.count == 40 else { throw VectorFailure("the first record is not the identity") }
        // The identity record's seed gives the header's identity key (§19.3).
        try expectHex(try Ed25519.PrivateKey(seed: SecureBytes(copying: identity.1.prefix(32))).publicKey.rawRepresentation,
                      identityKey, "identity key of the seed")

        // What a reader must refuse.
        var changed = archive
        changed[archive.count - 20] ^= 1
        let lastLength = SecretStream.overhead + 9 + (archive[9] == 1 ? 4 : 8)
        var wrongKey = key
        wrongKey[0] ^= 1
        for (what, bytes, readKey) in [("a cut archive", Array(archive.dropLast(lastLength)), key), ("a changed byte", changed, key),
                                       ("another key", archive, wrongKey)] {
            if (try? Self.read(bytes, key: readKey)) != nil { throw VectorFailure("\(what) was read") }
        }
        if testCase["refused"] != nil {
            for variant in try fields.list("refused") {
                let variantFields = CaseFields(variant)
                let what = try variantFields.string("what")
                if (try? Self.read(try variantFields.hex("archive"), key: try variantFields.hex("recovery_key"))) != nil {
                    throw VectorFailure("refused archive (\(what)) was read")
                }
            }
        }
    }
}
