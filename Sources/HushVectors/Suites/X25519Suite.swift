import HushCrypto

/// RFC 7748 X25519. Case shapes:
/// - `"operation": "scalarmult"`: `scalar`, `uCoordinate`, `output`, and
///   optionally `iterations` (RFC 7748 section 5.2: k and u start as given;
///   each step sets k, u = X25519(k, u), k; `output` is the final k).
///   With `"result": "invalid"` the multiplication must be refused as
///   `CryptoError.invalidKey` (a low-order point gives an all-zero secret).
/// - `"operation": "agreement"`: `alicePrivate`, `alicePublic`, `bobPrivate`,
///   `bobPublic`, `shared` (RFC 7748 section 6.1).
///
/// Every case runs twice, with the scalar in `.wiped` and in `.guarded`
/// memory: Hush computes the first with BoringSSL and the second with
/// libsodium (`X25519`), and both must give the vector's bytes.
public struct X25519Suite: VectorSuite {
    public let name = "x25519"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        for storage in [SecureBytes.Storage.wiped, .guarded] {
            switch try testCase.string("operation") {
            case "scalarmult": try scalarMultiplication(testCase, storage: storage)
            case "agreement": try agreement(testCase, storage: storage)
            case let other: throw VectorFailure("unknown x25519 operation \"\(other)\"")
            }
        }
    }

    private func multiply(_ scalar: [UInt8], _ u: [UInt8], storage: SecureBytes.Storage) throws -> [UInt8] {
        let key = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: scalar, storage: storage))
        return try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: u)).copyBytes()
    }

    private func scalarMultiplication(_ testCase: [String: Any], storage: SecureBytes.Storage) throws {
        var k = try testCase.hex("scalar")
        var u = try testCase.hex("uCoordinate")
        let iterations = try testCase.optionalInt("iterations") ?? 1
        guard iterations >= 1 else { throw VectorFailure("iterations must be at least 1") }
        if testCase.expectsRejection {
            try Check.rejects(.invalidKey, "X25519 with this point") { _ = try multiply(k, u, storage: storage) }
            return
        }
        for _ in 0..<iterations {
            (k, u) = (try multiply(k, u, storage: storage), k)
        }
        try Check.equal(k, try testCase.hex("output"), "X25519 output")
    }

    private func agreement(_ testCase: [String: Any], storage: SecureBytes.Storage) throws {
        let alice = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: testCase.hex("alicePrivate"), storage: storage))
        let bob = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: testCase.hex("bobPrivate"), storage: storage))
        try Check.equal(alice.publicKey.rawRepresentation, testCase.hex("alicePublic"), "Alice's public key")
        try Check.equal(bob.publicKey.rawRepresentation, testCase.hex("bobPublic"), "Bob's public key")
        let shared = try testCase.hex("shared")
        try Check.equal(alice.sharedSecret(with: bob.publicKey).copyBytes(), shared, "Alice's shared secret")
        try Check.equal(bob.sharedSecret(with: alice.publicKey).copyBytes(), shared, "Bob's shared secret")
    }
}
