import HushCrypto
import HushProtocol

/// Vectors/protocol/libsignal-fingerprint.json: libsignal's own fingerprint
/// vectors (rust/protocol/src/fingerprint.rs), run through the generic
/// algorithm with libsignal's key bytes (0x05 || Curve25519 key) and phone numbers.
public struct LibsignalFingerprintSuite: VectorSuite {
    public let name = "libsignal-fingerprint"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let version = try fields.uint32("version")
        if testCase["local_fingerprint"] != nil {
            let local = try fields.hex("local_fingerprint"), remote = try fields.hex("remote_fingerprint")
            // ScannableFingerprint requires 32-byte hashes (a precondition): a shorter one in a file fails the case.
            guard local.count >= 32, remote.count >= 32 else { throw VectorFailure("fingerprints must be at least 32 bytes") }
            let code = ScannableFingerprint(version: version, localHash: local, remoteHash: remote)
            try expectHex(code.serialized(), try fields.hex("scannable"), "scannable encoding")
            return
        }
        let aliceKey = try fields.hex("alice_identity_key"), bobKey = try fields.hex("bob_identity_key")
        let aliceID = Array(try fields.string("alice_stable_id").utf8), bobID = Array(try fields.string("bob_stable_id").utf8)
        let iterations = try fields.int("iterations")
        let a = try SafetyNumber(version: version, iterations: iterations, localKey: aliceKey, localStableID: aliceID, remoteKey: bobKey, remoteStableID: bobID)
        let b = try SafetyNumber(version: version, iterations: iterations, localKey: bobKey, localStableID: bobID, remoteKey: aliceKey, remoteStableID: aliceID)
        try expectEqual(a.digits, try fields.string("displayed"), "Alice's displayed number")
        try expectEqual(b.digits, try fields.string("displayed"), "Bob's displayed number")
        try expectHex(a.scannable.serialized(), try fields.hex("alice_scannable"), "Alice's scannable code")
        try expectHex(b.scannable.serialized(), try fields.hex("bob_scannable"), "Bob's scannable code")
        guard try a.scannable.matches(scanned: b.scannable.serialized()) else { throw VectorFailure("codes do not match each other") }
    }
}

/// Vectors/protocol/safety-number.json: Hush's safety number between two
/// identities (key = Ed25519 identity key, stable id = the address).
public struct HushSafetyNumberSuite: VectorSuite {
    public let name = "hush-safety-number"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let fields = CaseFields(testCase)
        let alice = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("alice_identity_seed"))).publicKey
        let bob = try IdentityKeyPair(seed: SecureBytes(copying: try fields.hex("bob_identity_seed"))).publicKey
        try expectEqual(alice.address.description, try fields.string("alice_address"), "Alice's address")
        try expectEqual(bob.address.description, try fields.string("bob_address"), "Bob's address")
        let a = SafetyNumber(local: alice, remote: bob), b = SafetyNumber(local: bob, remote: alice)
        try expectEqual(a.digits, try fields.string("displayed"), "displayed number")
        try expectEqual(b.digits, a.digits, "Bob's displayed number")
        try expectEqual(a.grouped, try fields.string("displayed_grouped"), "grouped number")
        try expectHex(a.scannable.serialized(), try fields.hex("alice_scannable"), "Alice's scannable code")
        try expectHex(b.scannable.serialized(), try fields.hex("bob_scannable"), "Bob's scannable code")
    }
}
