import HushCrypto

/// eddsa_verify_schema: groups carry the key (`publicKey.pk`, or `key.pk` in
/// older files); tests carry `msg` and `sig`. Success is a verified signature.
enum WycheproofEdDSA {
    static let evaluate: WycheproofRunner.Evaluate = { group, test in
        guard let key = (group["publicKey"] ?? group["key"]) as? [String: Any] else {
            throw VectorFailure("the test group has no \"publicKey\" object")
        }
        if let curve = key["curve"] as? String, curve != "edwards25519" { return .skipped }
        let publicBytes = try key.hex("pk")
        let message = try test.hex("msg")
        let signature = try test.hex("sig")
        return .outcome {
            let publicKey = try Ed25519.PublicKey(rawRepresentation: publicBytes)
            return publicKey.isValidSignature(signature, for: message) ? .succeeded : .rejected("signature does not verify")
        }
    }
}
