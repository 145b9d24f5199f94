import Testing
import HushCrypto

@Suite struct HMACSHA256Tests {
    let key = Array("a key that is not secret in tests".utf8)
    let message = Array("message".utf8)

    @Test func fullTagVerifies() {
        let tag = HMACSHA256.authenticationCode(for: message, key: key)
        #expect(tag.count == 32)
        #expect(HMACSHA256.isValid(tag: tag, for: message, key: key))
        #expect(HMACSHA256.deriveKey(from: message, key: key).copyBytes() == tag)
    }

    @Test func truncatedTagsDownToSixteenBytesVerify() {
        let tag = HMACSHA256.authenticationCode(for: message, key: key)
        #expect(HMACSHA256.isValid(tag: Array(tag.prefix(16)), for: message, key: key))
        #expect(HMACSHA256.isValid(tag: Array(tag.prefix(24)), for: message, key: key))
    }

    @Test(arguments: [0, 1, 8, 15])
    func tagsShorterThanSixteenBytesAreRefused(length: Int) {
        let tag = HMACSHA256.authenticationCode(for: message, key: key)
        #expect(!HMACSHA256.isValid(tag: Array(tag.prefix(length)), for: message, key: key))
    }

    @Test func wrongTagMessageOrKeyFails() {
        let tag = HMACSHA256.authenticationCode(for: message, key: key)
        var flipped = tag
        flipped[31] ^= 1
        #expect(!HMACSHA256.isValid(tag: flipped, for: message, key: key))
        #expect(!HMACSHA256.isValid(tag: tag + [0], for: message, key: key))
        #expect(!HMACSHA256.isValid(tag: tag, for: message + [0], key: key))
        // (key + [0] would be the same key: HMAC pads short keys with zeros.)
        #expect(!HMACSHA256.isValid(tag: tag, for: message, key: key + [1]))
        // A truncated tag whose last kept byte is wrong also fails.
        var truncated = Array(tag.prefix(16))
        truncated[15] ^= 1
        #expect(!HMACSHA256.isValid(tag: truncated, for: message, key: key))
    }

    @Test func longKeysAreHashedAndEmptyKeysWork() {
        let long = [UInt8](repeating: 0x61, count: 200)
        #expect(HMACSHA256.authenticationCode(for: message, key: long) != HMACSHA256.authenticationCode(for: message, key: Array(long.prefix(64))))
        // RFC 2104: a key longer than the block is replaced by its hash.
        #expect(HMACSHA256.authenticationCode(for: message, key: long) == HMACSHA256.authenticationCode(for: message, key: SHA256.hash(long)))
        #expect(HMACSHA256.authenticationCode(for: message, key: [UInt8]()).count == 32)
    }
}
