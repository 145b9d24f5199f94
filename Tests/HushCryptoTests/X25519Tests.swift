import HushTesting
import Testing
@_spi(Reference) import HushCrypto

@Suite struct X25519Tests {
    @Test func bothSidesAgreeOnTheSameSecret() throws {
        let random = DeterministicRandom(seed: "x25519-agreement")
        let alice = X25519.PrivateKey(using: random)
        let bob = X25519.PrivateKey(using: random)
        let ab = try alice.sharedSecret(with: bob.publicKey)
        let ba = try bob.sharedSecret(with: alice.publicKey)
        #expect(ab == ba)
        #expect(ab.count == 32)
        #expect(ab != SecureBytes(count: 32))
        let eve = X25519.PrivateKey(using: random)
        #expect(try eve.sharedSecret(with: bob.publicKey) != ab)
    }

    @Test func sameScalarGivesSamePublicKey() throws {
        let scalar = SecureBytes(randomCount: 32, using: DeterministicRandom(seed: "x25519-scalar"))
        let a = try X25519.PrivateKey(rawRepresentation: scalar)
        let b = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: scalar.copyBytes()))
        #expect(a.publicKey == b.publicKey)
        #expect(a.publicKey != X25519.PrivateKey(using: DeterministicRandom(seed: "other")).publicKey)
    }

    /// Points of small order on Curve25519 (and their non-canonical twins):
    /// multiplying any clamped scalar by them yields zero.
    static let lowOrderPoints = [
        "0000000000000000000000000000000000000000000000000000000000000000", // 0
        "0100000000000000000000000000000000000000000000000000000000000000", // 1
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800", // order 8
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157", // order 8
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p - 1
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p (= 0)
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // p + 1 (= 1)
    ]

    /// Both libraries refuse them: BoringSSL (a `.wiped` key) through Hush's
    /// own check, libsodium (a `.guarded` key) through its and Hush's.
    @Test(arguments: lowOrderPoints, [SecureBytes.Storage.wiped, .guarded])
    func lowOrderPeerKeyIsRefused(hex: String, storage: SecureBytes.Storage) throws {
        let peer = try X25519.PublicKey(rawRepresentation: Hex.decode(hex))
        let key = X25519.PrivateKey(using: DeterministicRandom(seed: "low-order"), storage: storage)
        #expect(throws: CryptoError.invalidKey) { _ = try key.sharedSecret(with: peer) }
    }

    /// A `.wiped` key computes with BoringSSL, a `.guarded` one with
    /// libsodium: over many random scalars and peers (and the vectors, which
    /// run on both), the two give the same public keys and the same secrets.
    @Test func bothLibrariesComputeTheSameFunction() throws {
        let random = DeterministicRandom(seed: "x25519-differential")
        for _ in 0..<300 {
            let scalar = random.bytes(32)
            let wiped = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: scalar))
            let guarded = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: scalar, storage: .guarded))
            #expect(wiped.publicKey == guarded.publicKey)
            #expect(wiped.publicKey.rawRepresentation == (try X25519.sodiumPublicKey(SecureBytes(copying: scalar))))
            // Any 32 bytes as the peer: off-curve and non-canonical inputs included.
            let peer = try X25519.PublicKey(rawRepresentation: random.bytes(32))
            let fast = try? wiped.sharedSecret(with: peer), reference = try? guarded.sharedSecret(with: peer)
            #expect(fast == reference)
            #expect(fast == (try X25519.sodiumSharedSecret(SecureBytes(copying: scalar), peer.rawRepresentation)))
        }
    }

    @Test func wrongLengthsAreRefused() {
        #expect(throws: CryptoError.invalidLength(what: "X25519 public key", expected: 32, actual: 31)) {
            _ = try X25519.PublicKey(rawRepresentation: [UInt8](repeating: 9, count: 31))
        }
        #expect(throws: CryptoError.self) {
            _ = try X25519.PrivateKey(rawRepresentation: SecureBytes(count: 33))
        }
    }

    @Test func privateKeyDescriptionShowsOnlyThePublicKey() {
        let key = X25519.PrivateKey(using: DeterministicRandom(seed: "describe"))
        let scalarHex = key.rawRepresentation.withUnsafeBytes { Hex.encode($0) }
        for text in [String(describing: key), String(reflecting: key)] {
            #expect(!text.contains(scalarHex))
            #expect(text.contains(Hex.encode(key.publicKey.rawRepresentation)))
        }
    }
}
