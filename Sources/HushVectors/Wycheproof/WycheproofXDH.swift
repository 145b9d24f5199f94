import HushCrypto

/// xdh_comp_schema: `public`, `private`, `shared` per test; groups name their `curve`.
enum WycheproofXDH {
    static let evaluate: WycheproofRunner.Evaluate = { group, test in
        guard (group["curve"] as? String) == "curve25519" else { return .skipped }
        let publicBytes = try test.hex("public")
        let privateBytes = try test.hex("private")
        let shared = try test.hex("shared")
        return .outcome {
            // Both of Hush's X25519 paths: BoringSSL (.wiped) and libsodium (.guarded) must agree.
            let peer = try X25519.PublicKey(rawRepresentation: publicBytes)
            let fast = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: privateBytes)).sharedSecret(with: peer)
            let reference = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: privateBytes, storage: .guarded)).sharedSecret(with: peer)
            guard fast == reference else { return .compare(fast.copyBytes(), reference.copyBytes(), "BoringSSL's against libsodium's shared secret") }
            return .compare(fast.copyBytes(), shared, "shared secret")
        }
    }
}
