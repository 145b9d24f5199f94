import HummingbirdTesting
import HushCrypto
import HushProtocol
import HushRelay
import HushRelayAPI
import HushRelayClient
import HushTesting
import NIOCore
import Testing

/// Accounts' device directories at the relay (PROTOCOL §20.9, RELAY-API
/// `/v1/directory/{name}`): only the account writes, counters only go up, a
/// record is kept as written, and a directory nobody renews is forgotten.
@Suite struct DirectoryRouteTests {
    /// An account with lists of counters 1 and 2, sealed, and its writer.
    struct Account {
        let identity: IdentityKeyPair
        let writer: DeviceDirectory.Writer
        let records: [UInt64: [UInt8]]

        init(_ seed: String) throws {
            identity = IdentityKeyPair.generate(using: DeterministicRandom(seed: seed))
            writer = try DeviceDirectory.Writer(account: identity)
            let phone = Ed25519.PrivateKey(using: DeterministicRandom(seed: "\(seed) phone"))
            let entry = try DeviceListEntry.linking(phone, to: identity.publicKey, name: "phone", addedAt: 1_795_000_000_000)
            var records: [UInt64: [UInt8]] = [:]
            for counter: UInt64 in [1, 2] {
                let list = try DeviceList.sign(account: identity, counter: counter, createdAt: 1_795_000_000_000, signer: phone, entries: [entry])
                records[counter] = try writer.directory.seal(list, using: DeterministicRandom(seed: "\(seed) \(counter)"))
            }
            self.records = records
        }

        var path: String { RelayPaths.directory(writer.directory.name.rawRepresentation) }

        func write(_ counter: UInt64, record: [UInt8]? = nil, signedBy other: DeviceDirectory.Writer? = nil) -> DirectoryWriteRequest {
            let record = record ?? records[counter]!
            return DirectoryWriteRequest(record: record, counter: counter, signature: (other ?? writer).signPut(counter: counter, record: record))
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func theAccountWritesAndAnyoneWithTheAddressReads(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try Account("alice")
        try await relay.application().test(.router) { client in
            #expect(try await client.get(alice.path).status == .notFound)
            let created = try await client.json(.put, alice.path, alice.write(1))
            #expect(created.status == .created)
            #expect(try JSON.decode(DirectoryWriteResponse.self, created.body) == DirectoryWriteResponse(result: "created", counter: 1))
            let replaced = try await client.json(.put, alice.path, alice.write(2))
            #expect(try JSON.decode(DirectoryWriteResponse.self, replaced.body).result == "replaced")
            let renewed = try await client.json(.put, alice.path, alice.write(2))
            #expect(renewed.status == .ok)
            #expect(try JSON.decode(DirectoryWriteResponse.self, renewed.body).result == "renewed")

            let read = try JSON.decode(DirectoryDTO.self, try await client.get(alice.path).body)
            #expect(read == DirectoryDTO(record: alice.records[2]!, counter: 2))
            // A contact who knows only the address opens it to the list.
            let directory = try DeviceDirectory(account: try IdentityKey(rawRepresentation: alice.identity.publicKey.rawRepresentation))
            #expect(try directory.open(read.record.bytes, counter: read.counter).counter == 2)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func anOlderOrDifferentListAtTheSameCounterIsRefusedAndChangesNothing(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try Account("alice")
        try await relay.application().test(.router) { client in
            #expect(try await client.json(.put, alice.path, alice.write(2)).status == .created)
            let older = try await client.json(.put, alice.path, alice.write(1))
            #expect(older.status == .conflict)
            #expect(JSON.errorCode(older) == "conflict")
            let other = try await client.json(.put, alice.path, alice.write(2, record: alice.records[1]!))
            #expect(other.status == .conflict)
            #expect(try JSON.decode(DirectoryDTO.self, try await client.get(alice.path).body).record.bytes == alice.records[2]!)
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func onlyTheAccountWritesItsDirectory(driver: StorageDriver) async throws {
        let relay = try await TestRelay(driver: driver)
        let alice = try Account("alice"), mallory = try Account("mallory")
        try await relay.application().test(.router) { client in
            // Mallory, who knows Alice's address and so her directory's name, cannot claim it first.
            let claimed = try await client.json(.put, alice.path, alice.write(1, record: mallory.records[1]!, signedBy: mallory.writer))
            #expect(claimed.status == .unprocessableContent)
            #expect(JSON.errorCode(claimed) == "invalid_signature")
            // A signature for another counter does not carry over.
            var moved = alice.write(1)
            moved.counter = 2
            #expect(try await client.json(.put, alice.path, moved).status == .unprocessableContent)
            #expect(try await client.get(alice.path).status == .notFound)
        }
    }

    @Test(arguments: [UInt64(0), UInt64(Int64.max) + 1, UInt64.max])
    func aCounterOutsideTheRelaysRangeIsMalformed(counter: UInt64) async throws {
        let relay = try TestRelay()
        let alice = try Account("alice")
        try await relay.application().test(.router) { client in
            let response = try await client.json(.put, alice.path, alice.write(counter, record: alice.records[1]!))
            #expect(response.status == .unprocessableContent)
            #expect(JSON.errorCode(response) == "malformed")
        }
    }

    @Test func somethingThatIsNotARecordOrNotANameIsRefused() async throws {
        let relay = try TestRelay()
        let alice = try Account("alice")
        let record = alice.records[1]!
        try await relay.application().test(.router) { client in
            for bad in [Array(record.dropLast()), [0x02] + record.dropFirst(), record + [UInt8](repeating: 0, count: 1024 * 25)] {
                let response = try await client.json(.put, alice.path, alice.write(1, record: bad))
                #expect(response.status == .unprocessableContent || response.status == .contentTooLarge, "\(bad.count) bytes")
            }
            #expect(try await client.get("/v1/directory/" + String(repeating: "zz", count: 32)).status == .badRequest)
            let short = try await client.get("/v1/directory/00")
            #expect(short.status == .badRequest)
            #expect(String(buffer: short.body).contains("the directory name in the path"), "\(String(buffer: short.body))")
        }
    }

    @Test(arguments: StorageDriver.allCases)
    func aDirectoryNobodyRenewsIsForgottenAndARenewalKeepsIt(driver: StorageDriver) async throws {
        let opened = try await OpenedDriver(driver)
        let alice = try Account("alice"), bob = try Account("bob")
        let lifetime = RelayLimits.directoryLifetimeSeconds * 1000
        let alicesName = alice.writer.directory.name.rawRepresentation, bobsName = bob.writer.directory.name.rawRepresentation
        #expect(try await opened.driver.writeDirectory(name: alicesName, counter: 1, record: alice.records[1]!, now: 1_000) == .created)
        #expect(try await opened.driver.writeDirectory(name: bobsName, counter: 1, record: bob.records[1]!, now: 1_000) == .created)
        #expect(try await opened.driver.writeDirectory(name: bobsName, counter: 1, record: bob.records[1]!, now: 1_000 + lifetime / 2) == .renewed)
        #expect(try await opened.driver.sweep(now: 1_000 + lifetime).directories == 1)
        #expect(try await opened.driver.directory(name: alicesName) == nil)
        #expect(try await opened.driver.directory(name: bobsName)?.writtenAt == 1_000 + lifetime / 2)
        let inventory = try await opened.driver.inventory()
        #expect(inventory.directories.map(\.name) == [bobsName])
        #expect(inventory.directories.first?.size == bob.records[1]!.count)
    }
}

/// The client's side over a real loopback port: a device publishes, a
/// contact who knows only the address finds and verifies the list.
@Suite struct LiveDirectoryTests {
    @Test func aContactFindsTheListTheAccountPublished() async throws {
        let alice = try DirectoryRouteTests.Account("alice")
        let phone = Ed25519.PrivateKey(using: DeterministicRandom(seed: "alice phone"))
        let entry = try DeviceListEntry.linking(phone, to: alice.identity.publicKey, name: "phone", addedAt: 1_795_000_000_000)
        let lists = try [UInt64(1), 2].map {
            try DeviceList.sign(account: alice.identity, counter: $0, createdAt: 1_795_000_000_000, signer: phone, entries: [entry])
        }
        try await LiveRelayTests.withLiveRelay { _, aliceClient, bobClient, _, _ in
            let account = try IdentityKey(rawRepresentation: alice.identity.publicKey.rawRepresentation)
            #expect(try await bobClient.fetchDirectory(of: account) == nil)
            #expect(try await aliceClient.publishDirectory(lists[1], writer: alice.writer).result == "created")
            #expect(try await bobClient.fetchDirectory(of: account) == lists[1])
            // An older list is refused by the relay, and the newer one stays.
            await #expect(throws: RelayClientError.self) { try await aliceClient.publishDirectory(lists[0], writer: alice.writer) }
            #expect(try await bobClient.fetchDirectory(of: account)?.counter == 2)
            // Another address finds nothing there.
            #expect(try await bobClient.fetchDirectory(of: try IdentityKey(rawRepresentation: DirectoryRouteTests.Account("carol").identity
                .publicKey.rawRepresentation)) == nil)
        }
    }
}
