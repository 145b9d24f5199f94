import HushCrypto

/// hkdf_test_schema: `ikm`, `salt`, `info`, `size`, `okm` per test.
enum WycheproofHKDF {
    static let evaluate: WycheproofRunner.Evaluate = { _, test in
        let ikm = try test.hex("ikm")
        let salt = try test.hex("salt")
        let info = try test.hex("info")
        let size = try test.int("size")
        let okm = try test.hex("okm")
        return .outcome {
            let derived = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, length: size)
            return .compare(derived.copyBytes(), okm, "okm")
        }
    }
}
