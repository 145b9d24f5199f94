import HushCrypto

/// An IETF AEAD (XChaCha20-Poly1305 or ChaCha20-Poly1305). Each case has
/// `key`, `nonce`, `aad`, `plaintext`, `ciphertext`, `tag`. A valid case
/// must seal to ciphertext || tag and open back to the plaintext; an
/// invalid one (`"result": "invalid"`) must fail to open with
/// `CryptoError.authenticationFailed`.
public struct AEADSuite: VectorSuite {
    public typealias Seal = @Sendable (_ plaintext: [UInt8], _ key: SecureBytes, _ nonce: [UInt8], _ aad: [UInt8]) throws -> [UInt8]
    public typealias Open = @Sendable (_ sealed: [UInt8], _ key: SecureBytes, _ nonce: [UInt8], _ aad: [UInt8]) throws -> [UInt8]

    public let name: String
    private let seal: Seal
    private let open: Open

    public init(name: String, seal: @escaping Seal, open: @escaping Open) {
        self.name = name
        self.seal = seal
        self.open = open
    }

    public static let xChaCha20Poly1305 = AEADSuite(
        name: "xchacha20-poly1305",
        seal: { try XChaCha20Poly1305.seal($0, key: $1, nonce: $2, associatedData: $3) },
        open: { try XChaCha20Poly1305.open($0, key: $1, nonce: $2, associatedData: $3) })

    public static let chaCha20Poly1305 = AEADSuite(
        name: "chacha20-poly1305",
        seal: { try ChaCha20Poly1305.seal($0, key: $1, nonce: $2, associatedData: $3) },
        open: { try ChaCha20Poly1305.open($0, key: $1, nonce: $2, associatedData: $3) })

    public func run(_ testCase: [String: Any]) throws {
        let key = SecureBytes(copying: try testCase.hex("key"))
        let nonce = try testCase.hex("nonce")
        let aad = try testCase.hex("aad")
        let sealed = try testCase.hex("ciphertext") + testCase.hex("tag")
        if testCase.expectsRejection {
            try Check.rejects(.authenticationFailed, "opening this ciphertext") {
                _ = try open(sealed, key, nonce, aad)
            }
            return
        }
        let plaintext = try testCase.hex("plaintext")
        try Check.equal(try seal(plaintext, key, nonce, aad), sealed, "ciphertext || tag")
        try Check.equal(try open(sealed, key, nonce, aad), plaintext, "opened plaintext")
    }
}
