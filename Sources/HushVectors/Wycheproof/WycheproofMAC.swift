import HushCrypto

/// mac_test_schema: `key`, `msg`, `tag` per test; groups give `tagSize` in
/// bits (tags may be truncated). Success is a tag that verifies.
enum WycheproofMAC {
    static let evaluate: WycheproofRunner.Evaluate = { group, test in
        let key = try test.hex("key")
        let message = try test.hex("msg")
        let tag = try test.hex("tag")
        let tagSize = try group.int("tagSize")
        guard tag.count * 8 == tagSize else { return .rejected("tag is not \(tagSize) bits long") }
        return HMACSHA256.isValid(tag: tag, for: message, key: key) ? .succeeded : .rejected("tag does not verify")
    }
}
