import HushCrypto

/// RFC 5869 HKDF-SHA256. Each case has `ikm`, `salt`, `info`, `length`,
/// `okm`, and optionally `prk` (checked against HKDF-Extract). With
/// `"result": "invalid"` the derivation must be refused as out of bounds.
public struct HKDFSuite: VectorSuite {
    public let name = "hkdf-sha256"
    public init() {}

    public func run(_ testCase: [String: Any]) throws {
        let ikm = try testCase.hex("ikm")
        let salt = try testCase.hex("salt")
        let info = try testCase.hex("info")
        let length = try testCase.int("length")
        if testCase.expectsRejection {
            do {
                _ = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, length: length)
            } catch CryptoError.parametersOutOfBounds {
                return
            }
            throw VectorFailure("HKDF accepted an output length of \(length) bytes; it must be refused")
        }
        if let prk = try testCase.optionalHex("prk") {
            try Check.equal(HKDF.extract(salt: salt, inputKeyMaterial: ikm).copyBytes(), prk, "PRK")
        }
        let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, length: length)
        try Check.equal(okm.copyBytes(), try testCase.hex("okm"), "OKM")
    }
}
