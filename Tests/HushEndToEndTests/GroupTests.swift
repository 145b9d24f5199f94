import Foundation
import Testing

/// Group conversations between four users as real `hush` processes and a
/// real relay (docs/PROTOCOL.md §18): create, talk, add a member who reads
/// only what follows, remove one who then receives nothing at all, a member
/// offline through two rotations, and a changed identity key that blocks
/// sending to the group until the member is removed.
@Suite struct GroupTests {
    /// A relay with its default limits: members the group introduces hand
    /// each other their delivery credential with their first envelope, so
    /// they do not write to each other as rate-limited strangers.
    private func testbed(_ label: String) throws -> Testbed {
        try Testbed(label)
    }

    private func bodies(_ bed: Testbed, _ user: User, _ group: String) throws -> Set<String> {
        Set(try bed.history(user, with: group).bodies)
    }

    @Test func fourUsersCreateTalkAddRemoveAndCatchUp() throws {
        let bed = try testbed("groups")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol"), dave = try bed.newUser("dave")
        for user in [bob, carol, dave] { try bed.meet(alice, user) }

        let created = try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol", "--json"]).json()
        #expect(created["epoch"] as? Int == 1 && (created["members"] as? [Any])?.count == 3, "\(created)")
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        let info = try bed.succeed(carol, ["group", "info", "hikers", "--json"]).json()
        let members = try #require(info["members"] as? [[String: Any]])
        // Carol never met Bob: the group introduced him, and she holds his key.
        #expect(members.count == 3 && members.allSatisfy { $0["hasKey"] as? Bool == true }, "\(info)")

        try bed.send(alice, to: "hikers", "summit at noon?")
        try bed.send(bob, to: "hikers", "yes")
        try bed.send(carol, to: "hikers", "bringing tea")
        for user in [alice, bob, carol, alice] { try bed.sync(user) }
        let talk: Set = ["summit at noon?", "yes", "bringing tea"]
        for user in [alice, bob, carol] { #expect(try bodies(bed, user, "hikers") == talk, "\(user.name)") }
        let aliceView = try bed.succeed(alice, ["history", "hikers", "--json", "--no-receipts"]).json()
        let first = try #require((aliceView["messages"] as? [[String: Any]])?.first { $0["body"] as? String == "summit at noon?" })
        #expect(first["deliveredTo"] as? Int == 2 && first["members"] as? Int == 2 && first["status"] as? String == "delivered", "\(first)")
        let fromBob = try #require((aliceView["messages"] as? [[String: Any]])?.first { $0["body"] as? String == "yes" })
        #expect(fromBob["contact"] as? String == "bob", "\(fromBob)")

        // Dave joins: he reads only what is sent from then on. Carol is offline from here.
        try bed.succeed(alice, ["group", "add", "hikers", "dave"])
        for user in [bob, dave, bob, dave] { try bed.sync(user) }
        try bed.send(bob, to: "hikers", "welcome dave")
        try bed.sync(dave)
        #expect(try bodies(bed, dave, "hikers") == ["welcome dave"])

        // Dave is removed: every key rotates, and his mailbox receives nothing more.
        try bed.succeed(alice, ["group", "remove", "hikers", "dave"])
        for user in [bob, dave, bob] { try bed.sync(user) }
        let removed = try bed.succeed(dave, ["group", "info", "hikers", "--json"]).json()
        #expect(removed["standing"] as? String == "removed", "\(removed)")
        #expect(try bed.storedEnvelopes(for: dave) == 0)
        try bed.send(bob, to: "hikers", "dave is gone")
        try bed.send(alice, to: "hikers", "so it is")
        #expect(try bed.storedEnvelopes(for: dave) == 0, "no envelope of the new epoch went to the removed member")
        try bed.sync(dave)
        #expect(try bodies(bed, dave, "hikers") == ["welcome dave"])
        let refused = try bed.hush(dave, ["send", "hikers", "let me back in"])
        #expect(refused.status != 0 && refused.stderr.contains("removed you"), "\(refused)")

        // Carol was offline through two rotations (add, remove): she catches up.
        for _ in 0..<3 { try bed.sync(carol) }
        #expect(try bodies(bed, carol, "hikers") == talk.union(["welcome dave", "dave is gone", "so it is"]), "carol")
        let carolInfo = try bed.succeed(carol, ["group", "info", "hikers", "--json"]).json()
        #expect(carolInfo["epoch"] as? Int == 3 && (carolInfo["members"] as? [Any])?.count == 3, "\(carolInfo)")
    }

    /// Carol never accepted Alice, who adds her to a group: the invitation
    /// waits with Alice's message request (shown there), the group's key and
    /// messages wait at the relay, and accepting the request joins the group
    /// and opens them. Alice is told that nothing came from Carol yet. (Before,
    /// the invitation was dropped: Carol never had the group, every sync
    /// reported group messages waiting for a key, and Alice saw "key not
    /// received yet" for ever.)
    @Test func anInvitationFromSomeoneNotYetAcceptedWaitsWithTheRequestAndIsJoinedOnAccepting() throws {
        let bed = try testbed("group-request")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        try bed.meet(alice, bob)
        try bed.sync(alice)
        try bed.addContact(alice, carol)
        let created = try bed.succeed(alice, ["group", "create", "trip", "bob", "carol"])
        #expect(created.stdout.contains("nothing received from them yet"), "\(created)")
        let pending = try bed.succeed(alice, ["group", "info", "trip", "--json"]).json()
        let answered = Dictionary(uniqueKeysWithValues: (pending["members"] as? [[String: Any]] ?? []).map {
            ($0["name"] as? String ?? "", $0["answered"] as? Bool) })
        #expect(answered["bob"] == true && answered["carol"] == false, "\(pending)")
        try bed.send(alice, to: "trip", "welcome, both of you")
        try bed.sync(bob)
        // Carol is told what keeps the group's messages waiting: her answer, not a key "on its way".
        let waiting = try bed.succeed(carol, ["sync"])
        #expect(waiting.stderr.contains("until you accept it (`hush requests`)") && !waiting.stderr.contains("on its way"), "\(waiting)")
        let waitingReport = try bed.sync(carol)
        #expect((waitingReport["waitingForAcceptance"] as? Int ?? 0) > 0 && waitingReport["waitingForGroupKeys"] as? Int == 0, "\(waitingReport)")

        let list = try bed.succeed(carol, ["requests", "list", "--json"]).json()
        let request = try #require((list["requests"] as? [[String: Any]])?.first { $0["address"] as? String == alice.address }, "\(list)")
        #expect(request["invitations"] as? [String] == ["trip"], "\(request)")
        let name = try #require(request["name"] as? String)
        #expect(try bed.succeed(carol, ["requests"]).stdout.contains("\(name) invites you to the group \"trip\""))
        #expect(try bed.succeed(carol, ["group", "list", "--json"]).stdout.contains("trip") == false, "not joined before accepting")

        try bed.succeed(carol, ["requests", "accept", name, "--name", "alice"])
        for user in [carol, bob, alice, carol] { try bed.sync(user) }
        let report = try bed.sync(carol)
        #expect(report["waitingForGroupKeys"] as? Int ?? 0 == 0 && report["waitingForAcceptance"] as? Int ?? 0 == 0, "\(report)")
        #expect(try bed.history(carol, with: "trip").incoming.bodies == ["welcome, both of you"])
        try bed.send(bob, to: "trip", "bob here")
        try bed.send(carol, to: "trip", "carol here")
        for user in [carol, bob, alice, carol, bob] { try bed.sync(user) }
        #expect(try bodies(bed, carol, "trip") == ["welcome, both of you", "bob here", "carol here"])
        #expect(try bodies(bed, bob, "trip") == ["welcome, both of you", "bob here", "carol here"])
        let info = try bed.succeed(alice, ["group", "info", "trip", "--json"]).json()
        let members = try #require(info["members"] as? [[String: Any]])
        #expect(members.count == 3 && members.allSatisfy { $0["hasKey"] as? Bool == true && $0["answered"] as? Bool == true }, "\(info)")
    }

    @Test func aChangedIdentityKeyBlocksTheGroupUntilTheMemberIsRemoved() throws {
        let bed = try testbed("group-identity")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.succeed(alice, ["group", "create", "team", "bob", "carol"])
        for user in [bob, carol] { try bed.sync(user) }
        try bed.sync(alice)

        // Carol starts over with a new identity; Alice learns the new address.
        let newCarol = try bed.initialise(carol, relayURL: bed.relay.url, force: true)
        let changed = try bed.hush(alice, ["contact", "add", "carol", newCarol.address])
        #expect(changed.status != 0, "\(changed)")
        let blocked = try bed.hush(alice, ["send", "team", "anyone there?"])
        #expect(blocked.status != 0 && blocked.stderr.contains("identity key has changed") && blocked.stderr.contains("hush group remove team carol"),
                "\(blocked)")
        #expect(try bed.history(alice, with: "team").isEmpty, "nothing was queued")

        try bed.succeed(alice, ["group", "remove", "team", "carol"])
        try bed.send(alice, to: "team", "just us now")
        try bed.sync(bob)
        try bed.sync(bob)
        #expect(try bodies(bed, bob, "team") == ["just us now"])
    }

    @Test func aNameThatIsBothAContactAndAGroupIsAnErrorThatSaysWhatToWrite() throws {
        let bed = try testbed("group-names")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob")
        try bed.meet(alice, bob)
        try bed.succeed(alice, ["group", "create", "bob", "bob"])
        let ambiguous = try bed.hush(alice, ["send", "bob", "which one?"])
        #expect(ambiguous.status != 0 && ambiguous.stderr.contains("contact:bob or group:bob"), "\(ambiguous)")
        try bed.send(alice, to: "group:bob", "to the group")
        try bed.send(alice, to: "contact:bob", "to bob")
        try bed.sync(bob)
        try bed.sync(bob)
        #expect(try bodies(bed, bob, "bob") == ["to the group"], "bob's group was named after its creator's name for it")

        // The prefix only chooses: output names the contact as it is named, and verify takes the prefix too.
        try bed.send(bob, to: "alice", "back to alice")
        try bed.sync(alice)
        let history = try bed.succeed(alice, ["history", "contact:bob", "--json"]).json()
        let contacts = try #require(history["messages"] as? [[String: Any]]).compactMap { $0["contact"] as? String }
        #expect(!contacts.isEmpty && contacts.allSatisfy { $0 == "bob" }, "\(contacts)")
        #expect(!(try bed.succeed(alice, ["history", "contact:bob"]).stdout.contains("contact:bob")))
        let verify = try bed.hush(alice, ["verify", "contact:bob", "--json"])
        #expect(verify.status == 0, "\(verify)")
        #expect(try verify.json()["contact"] as? String == "bob", "\(verify)")
    }

    /// `hush listen --json` prints a group message as it is pushed, naming the group and the member.
    @Test func listenShowsAGroupMessageWithItsGroupAndMember() throws {
        let bed = try testbed("group-listen")
        let alice = try bed.newUser("alice"), bob = try bed.newUser("bob"), carol = try bed.newUser("carol")
        for user in [bob, carol] { try bed.meet(alice, user) }
        try bed.sync(alice)
        try bed.succeed(alice, ["group", "create", "hikers", "bob", "carol"])
        for user in [bob, carol, bob, carol] { try bed.sync(user) }
        try bed.sync(alice)

        let result = try bed.listen(bob, seconds: 8, while: { try bed.send(carol, to: "hikers", "pushed to the group") },
                                    until: "pushed to the group")
        let event = try #require(result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { $0["body"] as? String == "pushed to the group" })
        #expect(event["event"] as? String == "message" && event["group"] as? String == "hikers" && event["contact"] as? String == "carol", "\(event)")
    }
}
