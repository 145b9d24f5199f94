import HushCrypto

/// xdh_comp_schema: `public`, `private`, `shared` per test; groups name their `curve`.
enum WycheproofXDH {
    static let evaluate: WycheproofRunner.Evaluate = { group, test in
        guard (group["curve"] as? String) == "curve25519" else { return .skipped }
        let publicBytes = try test.hex("public")
        let privateBytes = try test.hex("private")
        let shared = try test.hex("shared")
        return .outcome {
            let key = try X25519.PrivateKey(rawRepresentation: SecureBytes(copying: privateBytes))
            let secret = try key.sharedSecret(with: X25519.PublicKey(rawRepresentation: publicBytes))
            return .compare(secret.copyBytes(), shared, "shared secret")
        }
    }
}
