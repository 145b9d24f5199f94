import Foundation
import HushCrypto
@_spi(Vectors) import HushProtocol
import HushTesting
import Testing

/// The link code and the link's keys (PROTOCOL §20.5, §20.6): the written
/// form reads back, a typo is caught before anything is sent, and both
/// devices derive the same channel keys and confirmation digits, which
/// someone with the code alone does not.
@Suite struct LinkCodeTests {
    let relay = "https://relay.example.org"

    func code(_ seed: String = "link-code", relay: String? = nil) throws -> LinkCode {
        try LinkCode.generate(relay: relay ?? self.relay, using: DeterministicRandom(seed: seed))
    }

    func problem(_ text: String) -> LinkCodeProblem? {
        do {
            _ = try LinkCode(parsing: text)
            return nil
        } catch {
            guard case let .invalidLinkCode(problem) = error else { return nil }
            return problem
        }
    }

    @Test func theWrittenFormReadsBack() throws {
        let original = try code()
        let text = original.displayText
        let groups: [String] = text.components(separatedBy: "-")
        #expect(groups.dropLast().allSatisfy { $0.count == 4 } && groups.count > 20)
        let read = try LinkCode(parsing: text)
        #expect(read.secret == original.secret && read.relay == relay && read.bytes == original.bytes)
        // As a person might type it: lower case, spaces, O for 0 and I or L for 1.
        let typed = text.lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "0", with: "o")
            .replacingOccurrences(of: "1", with: "l")
        #expect(try LinkCode(parsing: typed).bytes == original.bytes)
        let withoutRelay = try code(relay: "")
        #expect(try LinkCode(parsing: withoutRelay.displayText).relay == "")
    }

    @Test func everySingleCharacterTypoIsCaught() throws {
        let text = Array(try code().displayText)
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var tried = 0
        for index in text.indices where text[index] != "-" {
            for replacement in alphabet where replacement != text[index] {
                var typo = text
                typo[index] = replacement
                let found = problem(String(typo))
                #expect(found == .badChecksum || found == .badPadding, "a typo at \(index) read as \(String(describing: found))")
                tried += 1
            }
        }
        #expect(tried > 3_000)
    }

    @Test func refusalsNameTheirReason() throws {
        let text = try code().displayText
        #expect(problem(text + "U") == .invalidCharacter)
        #expect(problem(String(text.dropLast(5))) != nil)
        #expect(problem("0000-0000") == .wrongLength)
        #expect(problem("") == .wrongLength)
        // A code of version 2 with its checksum right.
        var payload = try code().bytes.dropLast(4).map { $0 }
        payload[0] = 0x02
        let versionTwo = payload + Array(SHA256.hash(Array("hush/v1/link-code".utf8) + [0] + payload).prefix(4))
        #expect(problem(String(decoding: CrockfordBase32.encode(versionTwo), as: UTF8.self)) == .unsupportedVersion)
        // A relay with a space in it, checksum right.
        var spaced = try code(relay: "https://a").bytes.dropLast(4).map { $0 }
        spaced[spaced.count - 1] = 0x20
        let badRelay = spaced + Array(SHA256.hash(Array("hush/v1/link-code".utf8) + [0] + spaced).prefix(4))
        #expect(problem(String(decoding: CrockfordBase32.encode(badRelay), as: UTF8.self)) == .badRelay)
        #expect(throws: ProtocolError.invalidLinkCode(.badRelay)) { _ = try code(relay: String(repeating: "a", count: 201)) }
    }

    @Test func base32PaddingMustBeZero() throws {
        // One byte is two characters with two padding bits: "04" is 0x01 (0b00000|00100 → 00000001 00).
        #expect(try CrockfordBase32.decode("04") == [0x01])
        #expect(throws: CrockfordBase32.Problem.badPadding) { _ = try CrockfordBase32.decode("05") }
        #expect(throws: CrockfordBase32.Problem.wrongLength) { _ = try CrockfordBase32.decode("045") }
        #expect(String(decoding: CrockfordBase32.encode([0x01]), as: UTF8.self) == "04")
    }

    @Test func nothingSecretIsDescribed() throws {
        let linkCode = try code()
        let keys = try linkCode.keys()
        let e = X25519.PrivateKey(using: DeterministicRandom(seed: "e"))
        let channel = try keys.channel(own: e, peer: e.publicKey, newDevice: e.publicKey, existingDevice: e.publicKey)
        for text in ["\(linkCode)", "\(channel)", "\(keys)"] {
            #expect(!text.contains(Hex.encode(linkCode.secret.copyBytes())))
            #expect(!text.contains(linkCode.displayText))
            #expect(!text.contains(Hex.encode(keys.authenticationKey.copyBytes())))
            #expect(text.contains("redacted"))
        }
    }

    @Test func bothDevicesDeriveTheSameChannel() throws {
        let linkCode = try code()
        let existing = try linkCode.keys(), new = try LinkCode(parsing: linkCode.displayText).keys()
        #expect(existing.linkID == new.linkID && existing.linkID.count == 16)
        let en = X25519.PrivateKey(using: DeterministicRandom(seed: "new ephemeral"))
        let ee = X25519.PrivateKey(using: DeterministicRandom(seed: "existing ephemeral"))
        let hello = new.hello(en.publicKey)
        #expect(try existing.openHello(hello) == en.publicKey)
        let welcome = existing.welcome(ee.publicKey, answering: hello)
        #expect(try new.openWelcome(welcome, answering: hello) == ee.publicKey)
        let onExisting = try existing.channel(own: ee, peer: en.publicKey, newDevice: en.publicKey, existingDevice: ee.publicKey)
        let onNew = try new.channel(own: en, peer: ee.publicKey, newDevice: en.publicKey, existingDevice: ee.publicKey)
        #expect(onExisting.newToExisting == onNew.newToExisting && onExisting.existingToNew == onNew.existingToNew)
        #expect(onExisting.archiveKey == onNew.archiveKey && onExisting.confirmation == onNew.confirmation)
        #expect(onExisting.confirmation.count == 6 && !(onExisting.newToExisting == onExisting.existingToNew))
        let sealed = try onExisting.seal([0x03] + Array("account".utf8), from: .existingToNew, number: 0)
        #expect(try onNew.open(sealed, from: .existingToNew, number: 0) == [0x03] + Array("account".utf8))
        #expect(throws: ProtocolError.decryptionFailed) { _ = try onNew.open(sealed, from: .existingToNew, number: 1) }
        #expect(throws: ProtocolError.decryptionFailed) { _ = try onNew.open(sealed, from: .newToExisting, number: 0) }
    }

    @Test func aGreetingWithoutTheCodeIsRefused() throws {
        let keys = try code().keys(), other = try code("another code").keys()
        let e = X25519.PrivateKey(using: DeterministicRandom(seed: "new ephemeral"))
        let forged = other.hello(e.publicKey)
        #expect(throws: ProtocolError.self) { _ = try keys.openHello(forged) }
        let hello = keys.hello(e.publicKey)
        // A welcome must answer this very hello.
        let welcome = keys.welcome(e.publicKey, answering: forged)
        #expect(throws: ProtocolError.self) { _ = try keys.openWelcome(welcome, answering: hello) }
        #expect(throws: ProtocolError.self) { _ = try keys.openHello(Array(hello.dropLast())) }
    }

    /// The channel depends on the ephemerals' agreement, not the code alone:
    /// someone who had the code and watched the greetings derives other keys.
    @Test func theCodeAloneDoesNotGiveTheChannel() throws {
        let keys = try code().keys()
        let en = X25519.PrivateKey(using: DeterministicRandom(seed: "new ephemeral"))
        let ee = X25519.PrivateKey(using: DeterministicRandom(seed: "existing ephemeral"))
        let eve = X25519.PrivateKey(using: DeterministicRandom(seed: "eve"))
        let real = try keys.channel(own: ee, peer: en.publicKey, newDevice: en.publicKey, existingDevice: ee.publicKey)
        let guessed = try keys.channel(own: eve, peer: en.publicKey, newDevice: en.publicKey, existingDevice: ee.publicKey)
        #expect(!(real.archiveKey == guessed.archiveKey))
    }
}
