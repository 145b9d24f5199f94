import Testing
@testable import HushCrypto

@Suite struct SecureBytesTests {
    @Test func descriptionNeverShowsBytes() {
        let secret = SecureBytes(copying: Array("canary-secret".utf8))
        #expect(!String(describing: secret).contains("canary"))
        #expect(!String(reflecting: secret).contains("canary"))
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("canary"))
        #expect(!dumped.contains("99")) // 'c' is 0x63 = 99
    }
}
