import Foundation
import HushClient
import HushCrypto
import HushKeystore
import HushTesting
import Testing

/// Where `hush` reads a passphrase and the cost it stretches it with.
@Suite struct PassphraseSourceTests {
    @Test func passphraseSources() throws {
        let temporary = try TemporaryDirectory()
        let file = temporary.path("pass")
        try "first line\r\nsecond line\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(PassphraseSource.resolve(file: file, environment: ["HUSH_PASSPHRASE": "env"]) == .file(file))
        #expect(PassphraseSource.resolve(file: nil, environment: ["HUSH_PASSPHRASE": "env"]) == .environment(name: "HUSH_PASSPHRASE", value: "env"))
        #expect(try PassphraseSource.file(file).read() == SecureBytes(copying: Array("first line".utf8)))
        #expect(try PassphraseSource.environment(name: "HUSH_PASSPHRASE", value: "env").read() == SecureBytes(copying: Array("env".utf8)))
        #expect(throws: KeystoreError.self) { _ = try PassphraseSource.environment(name: "HUSH_PASSPHRASE", value: "").read() }
        try "\nsecond".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: KeystoreError.self) { _ = try PassphraseSource.file(file).read() }
    }

    @Test func namedCosts() throws {
        #expect(try KeyDerivationCost.resolve(option: nil, environment: [:]) == .moderate)
        #expect(try KeyDerivationCost.resolve(option: nil, environment: ["HUSH_KDF_COST": "interactive"]) == .interactive)
        #expect(try KeyDerivationCost.resolve(option: "sensitive", environment: ["HUSH_KDF_COST": "interactive"]) == .sensitive)
        #expect(throws: KeystoreError.unknownCost("cheap")) { _ = try KeyDerivationCost.named("cheap") }
    }
}

@Suite struct PassphraseSourceRedactionTests {
    @Test func anEnvironmentSourceNeverShowsItsPassphrase() {
        let source = PassphraseSource.resolve(file: nil, environment: ["HUSH_PASSPHRASE": "correct horse battery"])
        var dumped = ""
        dump(source, to: &dumped)
        for text in [String(describing: source), String(reflecting: source), dumped] {
            #expect(!text.contains("correct horse"), "leaked in: \(text)")
        }
        #expect(String(describing: source).contains("HUSH_PASSPHRASE"))
    }
}
