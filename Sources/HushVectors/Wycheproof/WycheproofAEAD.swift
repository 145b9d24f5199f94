import HushCrypto

/// aead_test_schema: `key`, `iv`, `aad`, `msg`, `ct`, `tag` per test. A test
/// succeeds when opening ct || tag gives msg and sealing msg gives ct || tag.
enum WycheproofAEAD {
    static let xChaCha20Poly1305: WycheproofRunner.Evaluate = { _, test in
        try evaluate(test,
                     seal: { try XChaCha20Poly1305.seal($0, key: $1, nonce: $2, associatedData: $3) },
                     open: { try XChaCha20Poly1305.open($0, key: $1, nonce: $2, associatedData: $3) })
    }

    static let chaCha20Poly1305: WycheproofRunner.Evaluate = { _, test in
        try evaluate(test,
                     seal: { try ChaCha20Poly1305.seal($0, key: $1, nonce: $2, associatedData: $3) },
                     open: { try ChaCha20Poly1305.open($0, key: $1, nonce: $2, associatedData: $3) })
    }

    private static func evaluate(
        _ test: [String: Any], seal: AEADSuite.Seal, open: AEADSuite.Open
    ) throws -> WycheproofVerdict {
        let key = SecureBytes(copying: try test.hex("key"))
        let nonce = try test.hex("iv")
        let aad = try test.hex("aad")
        let message = try test.hex("msg")
        let sealed = try test.hex("ct") + test.hex("tag")
        return .outcome {
            // Opening first: for a modified tag, refusal is the verdict.
            let opened = try open(sealed, key, nonce, aad)
            guard opened == message else { return .mismatch("decrypted plaintext differs from msg") }
            return .compare(try seal(message, key, nonce, aad), sealed, "ct || tag")
        }
    }
}
