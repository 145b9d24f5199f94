import HushCrypto

/// RFC 8032 Ed25519. Case shapes:
/// - `"operation": "sign"`: `seed`, `publicKey`, `message`, `signature`. The
///   public key is derived from the seed, the signature reproduced byte for
///   byte (Ed25519 is deterministic), then verified.
/// - `"operation": "verify"`: `publicKey`, `message`, `signature`; verification
///   must succeed, or fail when the case says `"result": "invalid"`.
public struct Ed25519Suite: VectorSuite {
    public let name = "ed25519"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        switch try testCase.string("operation") {
        case "sign": try sign(testCase)
        case "verify": try verify(testCase)
        case let other: throw VectorFailure("unknown ed25519 operation \"\(other)\"")
        }
    }

    private func sign(_ testCase: [String: Any]) throws {
        let key = try Ed25519.PrivateKey(seed: SecureBytes(copying: testCase.hex("seed")))
        try Check.equal(key.publicKey.rawRepresentation, testCase.hex("publicKey"), "public key")
        let message = try testCase.hex("message")
        let signature = key.signature(for: message)
        try Check.equal(signature, testCase.hex("signature"), "signature")
        guard key.publicKey.isValidSignature(signature, for: message) else {
            throw VectorFailure("the signature does not verify")
        }
    }

    private func verify(_ testCase: [String: Any]) throws {
        let publicKey = try Ed25519.PublicKey(rawRepresentation: testCase.hex("publicKey"))
        let valid = publicKey.isValidSignature(try testCase.hex("signature"), for: try testCase.hex("message"))
        switch (valid, testCase.expectsRejection) {
        case (true, false), (false, true): return
        case (false, false): throw VectorFailure("a valid signature was refused")
        case (true, true): throw VectorFailure("an invalid signature was accepted")
        }
    }
}
