import CSodium

/// Ed25519 key blinding (Tor's rend-spec-v3 §A.2, in its Ed25519 form):
/// anyone who knows a public key `A` and a context derives the blinded key
/// `h·A`; only the holder of `A`'s seed can sign for it, and a signature is
/// an ordinary Ed25519 signature under the blinded key, which strict
/// verification (`Ed25519.PublicKey.isValidSignature`) checks. Someone who
/// sees only blinded keys cannot tell which public key one came from.
/// Hush names an account's directory at the relay this way
/// (docs/PROTOCOL.md §20.9).
///
/// The blinding factor `h` is `SHA-512(label || A)` reduced mod ℓ; the label
/// separates uses.
public enum Ed25519Blinding {
    public static let scalarLength = Int(crypto_core_ed25519_SCALARBYTES)

    /// `h` for `publicKey` under `label`: 32 bytes, little-endian, reduced mod ℓ.
    public static func factor(label: [UInt8], publicKey: Ed25519.PublicKey) -> [UInt8] {
        Sodium.ensureInitialised()
        var h = [UInt8](repeating: 0, count: scalarLength)
        let wide = SHA512.hash(label + publicKey.rawRepresentation)
        crypto_core_ed25519_scalar_reduce(&h, wide)
        return h
    }

    /// The blinded public key `h·A`. Refuses a key that is not a canonical
    /// point of prime order and a product that is the identity, which strict
    /// verification would refuse as a signer.
    public static func blindedKey(label: [UInt8], publicKey: Ed25519.PublicKey) throws(CryptoError) -> Ed25519.PublicKey {
        let h = factor(label: label, publicKey: publicKey)
        var blinded = [UInt8](repeating: 0, count: Ed25519.publicKeyLength)
        guard crypto_scalarmult_ed25519_noclamp(&blinded, h, publicKey.rawRepresentation) == 0 else {
            throw .invalidKey
        }
        return try Ed25519.PublicKey(rawRepresentation: blinded)
    }

    /// The signing side: the blinded scalar `h·a mod ℓ` and a nonce prefix
    /// derived from the seed's, both in wiped memory.
    public struct SigningKey: Sendable {
        public let publicKey: Ed25519.PublicKey
        private let scalar: SecureBytes
        private let prefix: SecureBytes

        /// `prefixLabel` separates the nonce prefix from the seed's own (so
        /// no nonce is ever shared with a signature by the unblinded key).
        public init(label: [UInt8], prefixLabel: [UInt8], privateKey: Ed25519.PrivateKey) throws(CryptoError) {
            Sodium.ensureInitialised()
            let h = Ed25519Blinding.factor(label: label, publicKey: privateKey.publicKey)
            let expanded = SecureBytes(count: 64)
            privateKey.seed.withUnsafeBytes { seed in
                expanded.withUnsafeMutableBytes { out in
                    _ = crypto_hash_sha512(out.bindMemory(to: UInt8.self).baseAddress!, seed.bindMemory(to: UInt8.self).baseAddress!,
                                           UInt64(seed.count))
                }
            }
            // a: the clamped first half, as Ed25519 signs with it; reduced
            // mod ℓ before the product (libsodium's scalar operations take
            // reduced scalars).
            let wideA = SecureBytes(count: 64), a = SecureBytes(count: scalarLength), blinded = SecureBytes(count: scalarLength)
            expanded.withUnsafeBytes { e in
                wideA.withUnsafeMutableBytes { w in
                    w.copyMemory(from: UnsafeRawBufferPointer(rebasing: e[0..<32]))
                    w[0] &= 248
                    w[31] &= 127
                    w[31] |= 64
                }
            }
            wideA.withUnsafeBytes { w in
                a.withUnsafeMutableBytes { out in
                    crypto_core_ed25519_scalar_reduce(out.bindMemory(to: UInt8.self).baseAddress!, w.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            a.withUnsafeBytes { aBytes in
                blinded.withUnsafeMutableBytes { out in
                    crypto_core_ed25519_scalar_mul(out.bindMemory(to: UInt8.self).baseAddress!, h,
                                                   aBytes.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            let prefix = SecureBytes(count: 32)
            let input = SecureBytes(count: prefixLabel.count + 32)
            input.withUnsafeMutableBytes { i in
                i.copyBytes(from: prefixLabel)
                expanded.withUnsafeBytes { e in
                    UnsafeMutableRawBufferPointer(rebasing: i[prefixLabel.count...]).copyMemory(from: UnsafeRawBufferPointer(rebasing: e[32..<64]))
                }
            }
            let wide = SecureBytes(count: 64)
            input.withUnsafeBytes { i in
                wide.withUnsafeMutableBytes { w in
                    _ = crypto_hash_sha512(w.bindMemory(to: UInt8.self).baseAddress!, i.bindMemory(to: UInt8.self).baseAddress!, UInt64(i.count))
                }
            }
            wide.withUnsafeBytes { w in prefix.withUnsafeMutableBytes { p in p.copyMemory(from: UnsafeRawBufferPointer(rebasing: w[0..<32])) } }

            var point = [UInt8](repeating: 0, count: Ed25519.publicKeyLength)
            let status = blinded.withUnsafeBytes { b in
                crypto_scalarmult_ed25519_base_noclamp(&point, b.bindMemory(to: UInt8.self).baseAddress!)
            }
            guard status == 0 else { throw .libraryFailure("crypto_scalarmult_ed25519_base_noclamp") }
            let expected = try Ed25519Blinding.blindedKey(label: label, publicKey: privateKey.publicKey)
            // h·(a·B) = (h·a)·B: a mismatch is a bug, never a key to sign with.
            guard ConstantTime.equals(point, expected.rawRepresentation) else { throw .libraryFailure("blinded key mismatch") }
            self.publicKey = expected
            self.scalar = blinded
            self.prefix = prefix
        }

        /// RFC 8032 signing with the blinded scalar: `r = SHA-512(prefix' || M)`,
        /// `R = r·B`, `S = r + SHA-512(R || A' || M)·a'`, all mod ℓ.
        public func signature(for message: [UInt8]) -> [UInt8] {
            let r = SecureBytes(count: scalarLength)
            let nonceInput = SecureBytes(count: 32 + message.count)
            nonceInput.withUnsafeMutableBytes { n in
                prefix.withUnsafeBytes { p in n.copyMemory(from: p) }
                UnsafeMutableRawBufferPointer(rebasing: n[32...]).copyBytes(from: message)
            }
            let wide = SecureBytes(count: 64)
            nonceInput.withUnsafeBytes { n in
                wide.withUnsafeMutableBytes { w in
                    _ = crypto_hash_sha512(w.bindMemory(to: UInt8.self).baseAddress!, n.bindMemory(to: UInt8.self).baseAddress!, UInt64(n.count))
                }
            }
            wide.withUnsafeBytes { w in
                r.withUnsafeMutableBytes { out in
                    crypto_core_ed25519_scalar_reduce(out.bindMemory(to: UInt8.self).baseAddress!, w.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            var bigR = [UInt8](repeating: 0, count: 32)
            // r = 0 has probability 2^-252; libsodium then refuses and R
            // stays zero, which no verifier accepts: never a wrong signature.
            _ = r.withUnsafeBytes { crypto_scalarmult_ed25519_base_noclamp(&bigR, $0.bindMemory(to: UInt8.self).baseAddress!) }
            var k = [UInt8](repeating: 0, count: scalarLength)
            crypto_core_ed25519_scalar_reduce(&k, SHA512.hash(bigR + publicKey.rawRepresentation + message))
            var s = [UInt8](repeating: 0, count: scalarLength)
            let product = SecureBytes(count: scalarLength)
            scalar.withUnsafeBytes { a in
                product.withUnsafeMutableBytes { p in
                    crypto_core_ed25519_scalar_mul(p.bindMemory(to: UInt8.self).baseAddress!, k, a.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            r.withUnsafeBytes { rBytes in
                product.withUnsafeBytes { p in
                    crypto_core_ed25519_scalar_add(&s, rBytes.bindMemory(to: UInt8.self).baseAddress!, p.bindMemory(to: UInt8.self).baseAddress!)
                }
            }
            return bigR + s
        }
    }
}

extension Ed25519Blinding.SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Ed25519Blinding.SigningKey(redacted, public \(Hex.encode(publicKey.rawRepresentation)))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["publicKey": publicKey]) }
}
