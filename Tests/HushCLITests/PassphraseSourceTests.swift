import Foundation
import HushKit
import HushTesting
import Testing
@testable import hush

/// Where `hush` reads a passphrase and the cost it stretches it with.
@Suite struct PassphraseSourceTests {
    @Test func passphraseSources() throws {
        let temporary = try TemporaryDirectory()
        let file = temporary.path("pass")
        try "first line\r\nsecond line\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(PassphraseSource.resolve(file: file, environment: ["HUSH_PASSPHRASE": "env"]) == .file(file))
        #expect(PassphraseSource.resolve(file: nil, environment: ["HUSH_PASSPHRASE": "env"]) == .environment(name: "HUSH_PASSPHRASE", value: "env"))
        #expect(try PassphraseSource.file(file).read() == Array("first line".utf8))
        #expect(try PassphraseSource.environment(name: "HUSH_PASSPHRASE", value: "env").read() == Array("env".utf8))
        #expect(throws: HushError.self) { _ = try PassphraseSource.environment(name: "HUSH_PASSPHRASE", value: "").read() }
        try "\nsecond".write(toFile: file, atomically: true, encoding: .utf8)
        let empty = #expect(throws: HushError.self) { _ = try PassphraseSource.file(file).read() }
        #expect(empty?.kind == .keyUnavailable)
        #expect(empty?.lifecycleReport?.status == .passphraseUnavailable)
    }

    /// A passphrase file that cannot be read, or is too large, is refused
    /// with words naming it, and nothing of it is returned.
    @Test func unreadableAndOversizedFilesAreRefused() throws {
        let temporary = try TemporaryDirectory()
        let missing = #expect(throws: HushError.self) { _ = try PassphraseSource.file(temporary.path("nowhere")).read() }
        #expect(missing?.reason.contains("nowhere") == true)
        let large = temporary.path("large")
        try String(repeating: "x", count: PassphraseSource.maximumFileSize + 1).write(toFile: large, atomically: true, encoding: .utf8)
        let tooLarge = #expect(throws: HushError.self) { _ = try PassphraseSource.file(large).read() }
        #expect(tooLarge?.kind == .keyUnavailable && tooLarge?.reason.contains("too large") == true)
        let long = temporary.path("long")
        try String(repeating: "y", count: PassphraseSource.maximumLength + 1).write(toFile: long, atomically: true, encoding: .utf8)
        #expect(throws: HushError.self) { _ = try PassphraseSource.file(long).read() }
    }

    @Test func wipingZeroesEveryByte() {
        var secret = Array("correct horse".utf8)
        let count = secret.count
        secret.wipe()
        #expect(secret == [UInt8](repeating: 0, count: count))
    }

    @Test func namedCosts() throws {
        #expect(try KeyDerivationCost.resolve(option: nil, environment: [:]) == .level(.moderate))
        #expect(try KeyDerivationCost.resolve(option: nil, environment: ["HUSH_KDF_COST": "interactive"]) == .level(.interactive))
        #expect(try KeyDerivationCost.resolve(option: "sensitive", environment: ["HUSH_KDF_COST": "interactive"]) == .level(.sensitive))
        let unknown = #expect(throws: HushError.self) { _ = try KeyDerivationCost.named("cheap") }
        #expect(unknown?.description == "unknown key-derivation cost 'cheap': use interactive, moderate or sensitive")
    }

    /// The process tests' floor is a name a debug build knows and a release build refuses.
    @Test func theTestFloorIsKnownOnlyToDebugBuilds() throws {
        #if DEBUG
        #expect(try KeyDerivationCost.named("insecure-test-floor") == .insecureTestFloor)
        #else
        #expect(throws: HushError.self) { _ = try KeyDerivationCost.named("insecure-test-floor") }
        #endif
        #expect(!KeyDerivationCost.names.contains(KeyDerivationCost.testFloorName), "never offered")
    }

    @Test func theHomeComesFromTheOptionThenHushHomeThenHome() throws {
        #expect(try HomeDirectory.resolve(home: "/a", environment: ["HUSH_HOME": "/b", "HOME": "/c"]) == "/a")
        #expect(try HomeDirectory.resolve(home: nil, environment: ["HUSH_HOME": "/b", "HOME": "/c"]) == "/b")
        // An empty --home (an unset variable in a script) is refused: read as ~/.hush it opened another account.
        #expect(throws: HushError.self) { _ = try HomeDirectory.resolve(home: "", environment: ["HOME": "/c"]) }
        #expect(throws: HushError.self) { _ = try HomeDirectory.resolve(home: nil, environment: [:]) }
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
