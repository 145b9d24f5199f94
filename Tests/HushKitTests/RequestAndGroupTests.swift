import Foundation
import HushKit
import Testing

/// Message requests, blocking and groups through HushKit's public API.
@Suite struct HushKitRequestAndGroupTests {
    @Test func aStrangerWaitsAsARequestUntilAcceptedAndCanBeBlocked() async throws {
        let relay = try RelayProcess()
        let bob = try await App.account("bob", relay: relay)
        let carol = try await App.account("carol", relay: relay), dave = try await App.account("dave", relay: relay)
        defer { bob.close(); carol.close(); dave.close() }
        let bobEvents = bob.events()
        #expect(try await carol.displayName() == "carol", "create's displayName is the one sent")
        try await carol.setDisplayName("Carol C.")
        #expect(await App.errorKind { try await carol.setDisplayName("") } == .invalidInput)
        let bobForCarol = try await carol.addContact(name: "bob", address: bob.address)
        _ = try await carol.room(with: bobForCarol.id).send("hi, it's carol")

        #expect(try await App.sync(bob) { try await bob.messageRequests().count == 1 })
        let summary = try await bob.sync()
        #expect(summary.pendingRequests == 1 && summary.setAside == 0 && summary.deferred == 0 && summary.dropped == 0)
        #expect(summary.askedToResend == 0)
        #expect(summary.waitingForGroupKeys == 0 && summary.waitingForAcceptance == 0)
        let request = try #require(try await bob.messageRequests().first)
        #expect(request.contact.standing == .requested && request.contact.address == carol.address)
        #expect(request.messageCount == 1 && request.lastMessage?.text == "hi, it's carol" && request.groupInvitations.isEmpty)
        #expect(request.contact.profileName == "Carol C." && request.contact.name != "Carol C.")
        let told = await App.event(in: bobEvents) { if case .messageRequest(_, request.contact.id, _) = $0 { true } else { false } }
        #expect(told != nil)
        // A request is not a conversation until accepted, and nothing is sent back to it.
        #expect(try await bob.conversations().isEmpty)
        #expect(await App.errorKind { _ = try await bob.room(with: request.contact.id).send("no") } == .notAccepted)

        let accepted = try await bob.acceptRequest(from: request.contact.id, renameTo: "carol")
        #expect(accepted.standing == .accepted && accepted.name == "carol")
        #expect(try await bob.conversations().map(\.title) == ["carol"])
        #expect(try await bob.room(with: accepted.id).send("hello carol").status == .sent)
        #expect(try await App.sync(carol) { try await carol.conversations().first?.lastMessage?.text == "hello carol" })

        let bobForDave = try await dave.addContact(name: "bob", address: bob.address)
        _ = try await dave.room(with: bobForDave.id).send("buy now")
        #expect(try await App.sync(bob) { try await bob.messageRequests().count == 1 })
        let daveRequest = try #require(try await bob.messageRequests().first)
        try await bob.block(daveRequest.contact.id)
        #expect(try await bob.messageRequests().isEmpty)
        #expect(try await bob.messageRequests(blocked: true).map(\.contact.address) == [dave.address])
        #expect(try await bob.messageRequests(blocked: true).first?.lastMessage?.text == "buy now")
        let blocked = await App.error { _ = try await bob.room(with: daveRequest.contact.id).send("no") }
        #expect(blocked?.kind == .blocked && blocked?.subject == .contact(daveRequest.contact.name))
        #expect(try await bob.messageRequestsRemovedForRoom() == 0)
        #expect(HushAccount.maxMessageRequests == 200)
    }

    @Test func aGroupIsCreatedWrittenToRenamedAndLeft() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay)
        let bob = try await App.account("bob", relay: relay), carol = try await App.account("carol", relay: relay)
        defer { alice.close(); bob.close(); carol.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let (carolForAlice, _) = try await App.introduce(alice, carol, as: ("alice", "carol"))
        let bobEvents = bob.events()

        let group = try await alice.createGroup(name: "team", members: [bobForAlice, carolForAlice])
        #expect(group.youAreAdmin && group.standing == .member && group.members.count == 3)
        #expect(group.members.filter(\.isYou).map(\.address) == [alice.address])
        // Bob and carol have not written to alice yet: their invitations may still wait with them.
        #expect(group.members.filter { !$0.isYou }.allSatisfy { !$0.hasAnswered })
        #expect(Set(group.members.compactMap(\.contact)) == [bobForAlice, carolForAlice])
        #expect(group.members.allSatisfy { $0.isYou ? $0.verification == nil && $0.hasKey : $0.verification == .unverified })
        #expect(try await alice.groups().map(\.id) == [group.id])

        #expect(try await App.sync(bob) { try await bob.groups().first?.name == "team" })
        let bobGroup = try #require(try await bob.groups().first)
        #expect(!bobGroup.youAreAdmin)
        let notAdmin = await App.error { _ = try await bob.room(bobGroup.id).rename(to: "mine") }
        #expect(notAdmin?.kind == .notAdmin && notAdmin?.subject == .group("team"), "\(String(describing: notAdmin))")
        #expect(await App.event(in: bobEvents) { $0 == .groupChanged(bobGroup.id) } != nil)

        let room = try await alice.room(group.id)
        #expect(try await room.group()?.name == "team")
        #expect(try await room.contact() == nil)
        #expect(try await alice.title(of: group.id) == .group(name: "team"))
        let bobsRoom = try await alice.room(with: bobForAlice)
        #expect(try await alice.title(of: bobsRoom.id) == .contact(name: "bob"))
        let sent = try await room.send("hi team")
        #expect(try await App.sync(bob) { try await bob.room(bobGroup.id).history().messages.map(\.text) == ["hi team"] })
        #expect(try await App.sync(alice) { try await room.receipts(of: sent.id).delivered >= 1 })
        #expect(try await room.receipts(of: sent.id).members == 2)
        #expect(await App.errorKind { try await room.setTyping(true) } == .invalidInput)

        #expect(try await room.rename(to: "crew").name == "crew")
        #expect(try await alice.title(of: group.id) == .group(name: "crew"))
        #expect(try await App.sync(bob) { try await bob.groups().first?.name == "crew" })
        #expect(try await room.makeAdmin(bobForAlice).members.first { $0.contact == bobForAlice }?.isAdmin == true)
        let epochBefore = try #require(try await room.group()).epoch
        let smaller = try await room.removeMember(carolForAlice)
        #expect(smaller.members.count == 2 && smaller.epoch > epochBefore)
        #expect(try await App.sync(bob) { try await bob.groups().first?.members.count == 2 })
        let bobRoom = try await bob.room(bobGroup.id)
        try await bobRoom.leave()
        #expect(try await bob.groups().first?.standing == .left)
        #expect(try await App.sync(alice) { try await alice.groups().first?.members.count == 1 })
        #expect(await App.errorKind { _ = try await alice.room(with: bobForAlice).addMembers([carolForAlice]) } == .group)
        let alone = await App.error { _ = try await room.send("anyone?") }
        #expect(alone?.kind == .group && alone?.subject == .group("crew"), "\(String(describing: alone))")

    }

    @Test func aFileTravelsWithProgressAndIsFetchedVerified() async throws {
        let relay = try RelayProcess()
        let alice = try await App.account("alice", relay: relay), bob = try await App.account("bob", relay: relay)
        defer { alice.close(); bob.close() }
        let (bobForAlice, _) = try await App.introduce(alice, bob, as: ("alice", "bob"))
        let folder = try RelayProcess.temporaryDirectory("files")
        let source = folder.appendingPathComponent("notes.bin")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: source)

        let aliceEvents = alice.events()
        let steps = ProgressLog()
        let (message, attachment) = try await alice.room(with: bobForAlice).sendFile(at: source.path) { steps.add($0) }
        #expect(message.kind == .file && attachment.fileName == "notes.bin" && attachment.size == 300_000)
        #expect(attachment.state == .uploaded && attachment.direction == .outgoing)
        // The encrypted blob (what moved) is a little larger than the file.
        #expect(attachment.transferred > attachment.size && !attachment.mediaType.isEmpty, "\(attachment)")
        #expect(attachment.transferSize == attachment.transferred && attachment.createdAt > 0)
        #expect(steps.last.map { $0.done == $0.total && $0.total > 0 } == true)
        #expect(steps.phases.contains(.uploading))
        #expect(await App.event(in: aliceEvents) { if case .transferProgress = $0 { true } else { false } } != nil)

        #expect(try await App.sync(bob) { try await bob.conversations().first?.lastMessage?.kind == .file })
        let bobRoom = try await bob.room(try #require(try await bob.conversations().first).id)
        let incoming = try #require(try await bobRoom.attachments().first)
        #expect(incoming.state == .available && incoming.direction == .incoming)
        #expect(try await bob.attachment(of: try #require(try await bobRoom.history().messages.last).id)?.id == incoming.id)
        let destination = folder.appendingPathComponent("received.bin").path
        let fetchSteps = ProgressLog()
        let bobEvents = bob.events()
        let fetched = try await bob.fetch(incoming.id, to: destination) { fetchSteps.add($0) }
        #expect(fetched.state == .ready)
        // The end of the download is an event (a durable one: `eventRecords` replays it).
        #expect(await App.event(in: bobEvents) {
            if case let .fileChanged(id, message, _) = $0 { id == incoming.id && message == incoming.message } else { false }
        } != nil)
        #expect(try await bob.attachment(incoming.id).state == .ready)
        #expect(fetchSteps.phases.contains(.downloading))
        #expect(FileManager.default.contents(atPath: destination) == Data(bytes))
        try await bob.setAutoDownload(maxBytes: 1 << 20)
    }
}

/// The progress steps a transfer reported.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [TransferProgress] = []

    func add(_ step: TransferProgress) { lock.withLock { steps.append(step) } }

    var phases: Set<TransferProgress.Phase> { lock.withLock { Set(steps.map(\.phase)) } }

    var last: TransferProgress? { lock.withLock { steps.last } }
}
