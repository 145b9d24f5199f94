import HushClient
import HushKeystore
import HushMessenger
import HushStore
import Testing

/// The exit codes README.md documents, now carried by the errors themselves.
@Suite struct UserFacingErrorTests {
    @Test func keystoreErrorsKeepTheirCodes() {
        #expect(KeystoreError.wrongPassphrase.exitCode == 11)
        #expect(KeystoreError.noIdentity(home: "/h").exitCode == 10)
        #expect(KeystoreError.identityExists(path: "/h/keystore").exitCode == 15)
        #expect(KeystoreError.passphraseMismatch.exitCode == 16)
    }

    @Test func storeAndMessengerErrorsKeepTheirCodes() {
        #expect(StoreError.databaseMissing(path: "/h/messages.db", reason: .missing).exitCode == 17)
        #expect(StoreError.notFound("x").exitCode == 1)
        #expect(MessengerError.identityChanged(name: "bob").exitCode == 20)
        #expect(MessengerError.unknownContact("bob").exitCode == 21)
        #expect(MessengerError.notRegistered.exitCode == 22)
    }

    @Test func theMessageIsTheErrorsOwnDescriptionWithTheCommandThatHelps() {
        let error = MessengerError.unknownContact("bob")
        #expect(error.userMessage.hasPrefix(error.description) && error.userMessage.contains("`hush contact add bob ADDRESS`"))
    }
}
