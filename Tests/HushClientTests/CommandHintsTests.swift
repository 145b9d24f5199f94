import HushClient
import HushKeystore
import HushMessenger
import HushStore
import Testing

/// The lower modules word their errors for any front end (HushKit shows them
/// to apps); the `hush` commands that help are added by HushClient's
/// `userMessage`, and only there.
@Suite struct CommandHintsTests {
    static let messengerErrors: [MessengerError] = [
        .unknownContact("bob"), .contactExists(name: "bob"), .identityChanged(name: "bob"), .nothingToAccept(name: "bob"),
        .notRegistered, .invalidAddress("short"), .ownAddress, .messageTooLong(limit: 10), .relay(.unauthorized),
        .protocolFailure("p"), .missingLocalState("m"), .awaitingGroupKey("k"), .awaitingAcceptance("a group key"),
        .unknownMessage("1"), .requestNotAccepted(name: "bob"), .contactBlocked(name: "bob"), .noRequest(name: "bob"),
        .unknownAttachment(1), .attachmentUnavailable("u"), .attachmentRejected("r"), .unknownGroup("team"),
        .unknownConversation(1), .groupRefused("g"), .ambiguousName("x"), .notGroupAdmin(group: "team"),
        .removingYourself(group: "team"), .aloneInGroup(group: "team"), .memberIdentityChanged(group: "team", member: "bob"),
        .storedAttachmentDamaged(id: 3, reason: "digest"), .attachmentNotUploaded(id: 3), .invalidDisplayName(limit: 64),
    ]

    @Test func theMessengerNamesNoCommandAndTheCLIAddsThem() {
        for error in Self.messengerErrors {
            #expect(!error.description.contains("hush "), "\(error.description)")
        }
        #expect(MessengerError.unknownContact("bob").userMessage.contains("`hush contact add bob ADDRESS`"))
        #expect(MessengerError.notGroupAdmin(group: "team").userMessage.contains("`hush group info team`"))
        #expect(MessengerError.memberIdentityChanged(group: "team", member: "bob").userMessage.contains("`hush group remove team bob`"))
        #expect(MessengerError.awaitingAcceptance("a group key").userMessage == "a group key (`hush requests`)")
        #expect(MessengerError.storedAttachmentDamaged(id: 3, reason: "digest").userMessage.contains("`hush fetch 3`"))
        // A case without a hint reads the same in both.
        #expect(MessengerError.ownAddress.userMessage == MessengerError.ownAddress.description)
    }

    @Test func theKeystoreAndTheStoreNameNoCommandEither() {
        let keystoreErrors: [KeystoreError] = [.noIdentity(home: "/h"), .identityExists(path: "/h/keystore")]
        for error in keystoreErrors {
            #expect(!error.description.contains("hush "), "\(error.description)")
            #expect(error.userMessage.contains("`hush init"), "\(error.userMessage)")
        }
        let missing = StoreError.databaseMissing(path: "/h/messages.db", reason: .missing)
        #expect(!missing.description.contains("hush "))
        #expect(missing.userMessage.contains("`hush doctor --new-database`"))
    }
}
