import Foundation
import HushCrypto
@_spi(Vectors) import HushProtocol
import HushVectors

/// Fixed "random" values: the first `count` bytes of SHA-512("hush/vectors/" || label).
enum VectorSeeds {
    static func bytes(_ label: String, _ count: Int) -> [UInt8] {
        precondition(count <= 64)
        return Array(SHA512.hash(Array("hush/vectors/\(label)".utf8)).prefix(count))
    }

    static func hex(_ label: String, _ count: Int) -> String { Hex.encode(bytes(label, count)) }

    /// More than 64 bytes: `bytes("label/0", 64) || bytes("label/1", 64) || …`, cut to `count`.
    static func long(_ label: String, _ count: Int) -> [UInt8] {
        Array((0..<((count + 63) / 64)).flatMap { bytes("\(label)/\($0)", 64) }.prefix(count))
    }
}

/// Builds parties from a case dictionary, like the suites do.
struct Scenario {
    let alice: IdentityKeyPair, bob: IdentityKeyPair
    let signedPrekey: PrivatePrekey, oneTimePrekey: PrivatePrekey?, kemPrekey: PrivatePrekey
    let ephemeral: X25519.PrivateKey
    let kemCiphertext: [UInt8]

    init(_ c: [String: Any]) throws {
        func hex(_ key: String) throws -> [UInt8] { try Hex.decode(c[key] as! String) }
        alice = try IdentityKeyPair(seed: SecureBytes(copying: try hex("alice_identity_seed")))
        bob = try IdentityKeyPair(seed: SecureBytes(copying: try hex("bob_identity_seed")))
        signedPrekey = try PrivatePrekey(kind: .signedX25519, id: UInt32(c["bob_signed_prekey_id"] as! Int),
                                         secret: SecureBytes(copying: try hex("bob_signed_prekey_private")), identity: bob)
        if c["bob_one_time_prekey_private"] != nil {
            oneTimePrekey = try PrivatePrekey(kind: .oneTimeX25519, id: UInt32(c["bob_one_time_prekey_id"] as! Int),
                                              secret: SecureBytes(copying: try hex("bob_one_time_prekey_private")), identity: bob)
        } else {
            oneTimePrekey = nil
        }
        kemPrekey = try PrivatePrekey(kind: PrekeyKind(rawValue: UInt8(c["bob_kem_prekey_kind"] as! Int))!, id: UInt32(c["bob_kem_prekey_id"] as! Int),
                                      secret: SecureBytes(copying: try hex("bob_kem_prekey_seed")), identity: bob)
        ephemeral = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: try hex("alice_ephemeral_private")))
        kemCiphertext = try hex("kem_ciphertext")
    }

    var bundle: PrekeyBundle {
        get throws {
            try PrekeyBundle(identityKey: bob.publicKey, signedPrekey: signedPrekey.signed, kemPrekey: kemPrekey.signed, oneTimePrekey: oneTimePrekey?.signed)
        }
    }

    var encapsulation: MLKEM.Encapsulation {
        get throws {
            try MLKEM.Encapsulation(ciphertext: kemCiphertext, sharedSecret: try MLKEM.PrivateKey(seed: kemPrekey.secret).decapsulate(kemCiphertext))
        }
    }
}

/// ML-KEM ciphertexts made once (random encapsulation) and then reused, one
/// line "label public-key-sha256 ciphertext-hex" each. A line whose public key
/// no longer matches is made anew.
final class PinnedCiphertexts: @unchecked Sendable {
    let path: String
    var entries: [String: (keyHash: String, ciphertext: String)] = [:]

    init(path: String) throws {
        self.path = path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ").map(String.init)
            if parts.count == 3 { entries[parts[0]] = (parts[1], parts[2]) }
        }
    }

    func ciphertext(label: String, publicKey: [UInt8]) throws -> [UInt8] {
        let keyHash = Hex.encode(SHA256.hash(publicKey))
        if let entry = entries[label], entry.keyHash == keyHash { return try Hex.decode(entry.ciphertext) }
        let fresh = try MLKEM.encapsulate(to: publicKey).ciphertext
        entries[label] = (keyHash, Hex.encode(fresh))
        return fresh
    }

    func save() throws {
        var text = "# ML-KEM-768 ciphertexts pinned for the protocol vectors: label, SHA-256 of the public key, ciphertext.\n"
        text += "# swift-crypto cannot encapsulate with given randomness; see Vectors/README.md.\n"
        for label in entries.keys.sorted() { text += "\(label) \(entries[label]!.keyHash) \(entries[label]!.ciphertext)\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// bech32 over 8-bit bytes, for crafting invalid addresses.
enum Bech32Encoding {
    static let alphabet = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    static func encode(hrp: String, bytes: [UInt8]) -> String {
        var values: [UInt8] = [], acc = 0, bits = 0
        for b in bytes {
            acc = acc << 8 | Int(b); bits += 8
            while bits >= 5 { bits -= 5; values.append(UInt8((acc >> bits) & 31)) }
        }
        if bits > 0 { values.append(UInt8((acc << (5 - bits)) & 31)) }
        let h = Array(hrp.utf8)
        let expanded = h.map { $0 >> 5 } + [0] + h.map { $0 & 31 }
        var chk: UInt32 = 1
        let gen: [UInt32] = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3]
        for v in expanded + values + [0, 0, 0, 0, 0, 0] {
            let top = chk >> 25
            chk = (chk & 0x1ffffff) << 5 ^ UInt32(v)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= gen[i] }
        }
        chk ^= 1
        let checksum = (0..<6).map { UInt8((chk >> UInt32(5 * (5 - $0))) & 31) }
        return hrp + "1" + String((values + checksum).map { alphabet[Int($0)] })
    }
}

/// Writes one suite file with sorted keys and stable formatting.
func write(_ file: String, suite: String? = nil, source: String, cases: [[String: Any]]) throws {
    let object: [String: Any] = ["suite": suite ?? "hush-\(file)", "source": source, "cases": cases]
    var data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    data.append(0x0a)
    try data.write(to: URL(fileURLWithPath: "\(directory)/\(file).json"))
}
