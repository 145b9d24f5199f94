import HushCrypto

/// KDF_CK and KDF_RK of the Double Ratchet (docs/PROTOCOL.md, "Double Ratchet").
enum ChainStep {
    /// MK = HMAC(CK, 0x01) into `messageKey`; CK := HMAC(CK, 0x02) in place;
    /// with `headerNonce`, also HMAC(CK, 0x03) (the sender's header nonce source).
    static func advance(_ chainKey: UnsafeMutableRawBufferPointer, messageKey: UnsafeMutableRawBufferPointer,
                        headerNonce: UnsafeMutableRawBufferPointer? = nil) {
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 16) { next in
            let key = UnsafeRawBufferPointer(chainKey)
            if let headerNonce {
                HMACSHA256.authenticateSingleBytes(key: key, (RatchetConstants.messageKeyConstant, messageKey),
                                                   (RatchetConstants.chainKeyConstant, next), (RatchetConstants.headerNonceConstant, headerNonce))
            } else {
                HMACSHA256.authenticateSingleBytes(key: key, (RatchetConstants.messageKeyConstant, messageKey),
                                                   (RatchetConstants.chainKeyConstant, next))
            }
            chainKey.copyMemory(from: UnsafeRawBufferPointer(next))
            ConstantTime.wipe(next)
        }
    }

    /// KDF_RK: HKDF-SHA256(salt = RK, IKM = DH output, info = "hush/v1/root" 0x00, 96 bytes)
    /// -> (root key, chain key, next header key).
    static func root(_ rootKey: SecureBytes, _ dhOutput: SecureBytes) throws(ProtocolError) -> (SecureBytes, SecureBytes, SecureBytes) {
        do {
            let okm = try HKDF.deriveKey(inputKeyMaterial: dhOutput, salt: rootKey, info: Labels.rootChain, length: 96)
            return (okm.slice(0..<32), okm.slice(32..<64), okm.slice(64..<96))
        } catch {
            throw .crypto(error)
        }
    }
}
