import Foundation
import HushKit
import Testing

/// Creating and opening an account, and the errors an app meets on the way.
@Suite struct HushKitAccountTests {
    @Test func anAccountIsCreatedOnceAndOpensOnlyWithItsKey() async throws {
        let directory = try RelayProcess.temporaryDirectory("lifecycle").appendingPathComponent("home").path
        let created = try await HushAccount.create(in: directory, keys: App.keys, displayName: "me")
        #expect(created.address.hasPrefix("hush1"))
        #expect(created.fingerprint.split(separator: " ").count == 16)
        #expect(created.relayURL == nil)
        #expect(created.directory == directory)
        created.close()

        #expect(await App.errorKind { _ = try await HushAccount.create(in: directory, keys: App.keys) } == .accountExists)
        #expect(await App.errorKind {
            _ = try await HushAccount.open(in: directory, keys: .passphrase("not the passphrase", cost: .interactive))
        } == .wrongKey)
        let other = try RelayProcess.temporaryDirectory("long-name").appendingPathComponent("home").path
        #expect(await App.errorKind {
            _ = try await HushAccount.create(in: other, keys: App.keys, displayName: String(repeating: "x", count: 65))
        } == .invalidInput, "the one display-name rule, at creation too")
        let emptyDirectory = try RelayProcess.temporaryDirectory("empty").path
        #expect(await App.errorKind { _ = try await HushAccount.open(in: emptyDirectory, keys: App.keys) } == .noAccount)

        let opened = try await HushAccount.open(in: directory, keys: .passphrase(bytes: Array(App.passphrase.utf8)))
        defer { opened.close() }
        #expect(opened.address == created.address)
        #expect(try await opened.contacts().isEmpty)
        #expect(try await opened.conversations().isEmpty)
        // No relay: the errors say so instead of failing somewhere deeper.
        #expect(await App.errorKind { try await opened.register() } == .notRegistered)
        #expect(await App.errorKind { _ = try await opened.sync() } == .notRegistered)
        #expect(try await opened.isRegistered() == false)
        #expect(try await opened.relayRegistration() == .notRegistered)

        // After close, a new subscription ends at once instead of waiting for ever.
        let early = opened.events()
        opened.close()
        #expect(await App.ends(opened.events()), "a stream taken after close() ends")
        #expect(await App.ends(early), "close() ends the streams taken before")
    }

    @Test func anApplicationKeyOpensItsAccountAndNothingElseDoes() async throws {
        let directory = try RelayProcess.temporaryDirectory("app-key").appendingPathComponent("home").path
        let key = KeyProvider.newApplicationKey()
        let created = try await HushAccount.create(in: directory, keys: .applicationKey(key))
        created.close()
        var other = key
        other[0] ^= 1
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: .applicationKey(other)) } == .wrongKey)
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: .applicationKey(Array(key.prefix(16)))) }
            == .invalidInput)
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: App.keys) } == .wrongKey)
        let opened = try await HushAccount.open(in: directory, keys: .applicationKey(key))
        #expect(opened.address == created.address)
        opened.close()
        // And the other way round: a passphrase account does not open with a key.
        let passphraseDirectory = try RelayProcess.temporaryDirectory("passphrase").appendingPathComponent("home").path
        try await HushAccount.create(in: passphraseDirectory, keys: App.keys).close()
        #expect(await App.errorKind { _ = try await HushAccount.open(in: passphraseDirectory, keys: .applicationKey(key)) } == .wrongKey)
    }

    @Test func theKeyChangesWithoutTouchingTheAccount() async throws {
        let directory = try RelayProcess.temporaryDirectory("rekey").appendingPathComponent("home").path
        let account = try await HushAccount.create(in: directory, keys: App.keys)
        let key = KeyProvider.newApplicationKey()
        #expect(await App.errorKind {
            try await account.changeKeys(from: .passphrase("wrong", cost: .interactive), to: .applicationKey(key))
        } == .wrongKey)
        try await account.changeKeys(from: App.keys, to: .applicationKey(key))
        account.close()
        #expect(await App.errorKind { _ = try await HushAccount.open(in: directory, keys: App.keys) } == .wrongKey)
        let reopened = try await HushAccount.open(in: directory, keys: .applicationKey(key))
        #expect(reopened.address == account.address)
        reopened.close()
    }

    @Test func keysNeverShowInDescriptions() {
        let passphrase = KeyProvider.passphrase("correct horse battery staple")
        #expect(!passphrase.description.contains("horse"))
        let key = KeyProvider.newApplicationKey()
        #expect(key.count == KeyProvider.applicationKeyLength)
        #expect(KeyProvider.newApplicationKey() != key)
        #expect(!KeyProvider.applicationKey(key).description.contains(App.hex(key)))
        #expect(PassphraseCost.allCases.count == 3)
    }

    @Test func errorsSayWhatWentWrongAndWhatToDo() {
        let error = HushError(.relayUnavailable, reason: "the relay could not be used", suggestion: "check the URL")
        #expect(error.description == "the relay could not be used: check the URL")
        #expect(HushError(.other, reason: "no suggestion").description == "no suggestion")
        #expect(HushError.Kind.allCases.contains(.wrongKey))
    }

    @Test func idsRoundTripThroughTheirNumbers() throws {
        let id = MessageID(rawValue: 42)
        #expect(id.description == "42")
        let encoded = try JSONEncoder().encode([id])
        #expect(String(decoding: encoded, as: UTF8.self) == "[42]")
        #expect(try JSONDecoder().decode([MessageID].self, from: encoded) == [id])
        #expect(ContactID(rawValue: 7).rawValue == 7 && ConversationID(rawValue: 8).rawValue == 8 && AttachmentID(rawValue: 9).rawValue == 9)
    }
}
