import HushCrypto
@_spi(Vectors) import HushProtocol
import HushTesting
import Testing

/// The signed device list (PROTOCOL §20.2, §20.3): a round trip, each rule
/// of §20.3 refusing what it names (every refused list properly signed, so
/// only that rule can be what refuses it), and the rules that need the list
/// held before: a replayed old list, an un-revoked device, a list a revoked
/// device signed with the account key it still holds.
@Suite struct DeviceListTests {
    let account = IdentityKeyPair.generate(using: DeterministicRandom(seed: "device-list account"), storage: .wiped)
    let phone = Ed25519.PrivateKey(using: DeterministicRandom(seed: "device-list phone"))
    let laptop = Ed25519.PrivateKey(using: DeterministicRandom(seed: "device-list laptop"))
    let server = Ed25519.PrivateKey(using: DeterministicRandom(seed: "device-list server"))
    let t0: UInt64 = 1_795_000_000_000

    func entry(_ device: Ed25519.PrivateKey, _ name: String, at time: UInt64 = 1_795_000_000_000) throws -> DeviceListEntry {
        try DeviceListEntry.linking(device, to: account.publicKey, name: name, addedAt: time)
    }

    func list(_ counter: UInt64, signer: Ed25519.PrivateKey? = nil, _ entries: [DeviceListEntry]) throws -> DeviceList {
        try DeviceList.sign(account: account, counter: counter, createdAt: t0 + counter, signer: signer ?? phone, entries: entries)
    }

    /// A body written as given and signed with both keys: refused only by what is wrong in it.
    func crafted(counter: UInt64 = 1, signer: Ed25519.PrivateKey? = nil, _ entries: [DeviceListEntry]) -> [UInt8] {
        let signing = signer ?? phone
        let body = DeviceList.encodeBody(account: account.publicKey, counter: counter, createdAt: t0, signer: DeviceID(deviceKey: signing.publicKey),
                                         entries: entries)
        return DeviceList.signedBytes(body: body, account: account, signer: signing)
    }

    func refusal(_ bytes: [UInt8], holding held: DeviceList? = nil, account key: IdentityKey? = nil) -> DeviceListProblem? {
        let verifier = DeviceListVerifier(account: key ?? account.publicKey, current: held)
        do {
            _ = try verifier.check(bytes)
            return nil
        } catch {
            guard case let .deviceListRefused(problem) = error else { return nil }
            return problem
        }
    }

    @Test func aSignedListDecodesToTheSameDevicesInCanonicalOrder() throws {
        let signed = try list(1, [try entry(server, "server"), try entry(phone, "phone"), try entry(laptop, "laptop 💻")])
        let decoded = try DeviceList.decode(signed.encoded, account: account.publicKey)
        #expect(decoded == signed)
        #expect(decoded.entries.map(\.id) == decoded.entries.map(\.id).sorted())
        #expect(Set(decoded.entries.map(\.name)) == ["server", "phone", "laptop 💻"])
        #expect(decoded.signer == DeviceID(deviceKey: phone.publicKey))
        #expect(decoded.counter == 1 && decoded.createdAt == t0 + 1)
        // The encoding is exactly §20.2's: header, entries, two signatures.
        let names = decoded.entries.reduce(0) { $0 + $1.name.utf8.count }
        #expect(signed.encoded.count == DeviceLimits.headerLength + 3 * DeviceLimits.entryFixedLength + names + 128)
        var verifier = DeviceListVerifier(account: account.publicKey)
        guard case let .accepted(change) = try verifier.accept(signed.encoded) else { Issue.record("not accepted"); return }
        #expect(change.added.count == 3 && change.revoked.isEmpty && change.fingerprintChanged)
        #expect(try verifier.accept(signed.encoded) == .unchanged)
    }

    @Test func aDeviceIDIsTheHashOfItsKey() throws {
        let id = DeviceID(deviceKey: phone.publicKey)
        #expect(id.bytes == Array(SHA256.hash(Array("hush/v1/device-id".utf8) + [0] + phone.publicKey.rawRepresentation).prefix(16)))
    }

    /// Attacker-chosen bytes: every cut of a list, and garbage (half of it
    /// naming the account), is refused with a reason, never a crash.
    @Test func everyTruncationAndRandomBytesAreRefused() throws {
        let bytes = try list(1, [try entry(phone, "phone"), try entry(laptop, "laptop")]).encoded
        for cut in 0..<bytes.count { #expect(refusal(Array(bytes[..<cut])) != nil, "cut at \(cut)") }
        let random = DeterministicRandom(seed: "device-list garbage")
        for round in 0..<300 {
            var garbage = random.bytes(Int(random.uniform(2_000)))
            if round % 2 == 0, garbage.count > 33 { garbage.replaceSubrange(0..<33, with: [0x01] + account.publicKey.rawRepresentation) }
            #expect(refusal(garbage) != nil)
        }
    }

    // MARK: §20.3 steps 1–8, one rule at a time.

    @Test func anUnknownVersionIsRefused() throws {
        var bytes = try list(1, [try entry(phone, "phone")]).encoded
        bytes[0] = 0x02
        #expect(refusal(bytes) == .unsupportedVersion)
        #expect(refusal([]) == .unsupportedVersion)
    }

    @Test func aShortOrOverlongListIsRefusedBeforeAnythingIsRead() throws {
        let bytes = try list(1, [try entry(phone, "phone")]).encoded
        #expect(refusal(Array(bytes.prefix(DeviceLimits.minimumListLength - 1))) == .truncated)
        #expect(refusal(bytes + [UInt8](repeating: 0, count: DeviceLimits.maximumListLength)) == .tooLong)
    }

    @Test func anotherAccountsListIsRefused() throws {
        let bytes = try list(1, [try entry(phone, "phone")]).encoded
        let other = IdentityKeyPair.generate(using: DeterministicRandom(seed: "device-list other"), storage: .wiped)
        #expect(refusal(bytes, account: other.publicKey) == .wrongAccount)
    }

    @Test func aBadAccountSignatureIsRefused() throws {
        var bytes = try list(1, [try entry(phone, "phone")]).encoded
        bytes[bytes.count - 128] ^= 0x01
        #expect(refusal(bytes) == .badSignature)
        // Any change to the body breaks it too.
        var renamed = try list(1, [try entry(phone, "phone")]).encoded
        renamed[DeviceLimits.headerLength + DeviceLimits.entryFixedLength - 64] ^= 0x20
        #expect(refusal(renamed) == .badSignature)
    }

    @Test func tooManyDevicesAreRefused() throws {
        let devices = (0..<(DeviceLimits.maxActiveDevices + 1)).map { Ed25519.PrivateKey(using: DeterministicRandom(seed: "device-list many \($0)")) }
        let entries = try devices.map { try entry($0, "d") }.sorted { $0.id < $1.id }
        #expect(refusal(crafted(signer: devices[0], entries)) == .tooManyDevices)
        // More than 128 entries is refused from the count alone.
        var body = DeviceList.encodeBody(account: account.publicKey, counter: 1, createdAt: t0, signer: DeviceID(deviceKey: phone.publicKey),
                                         entries: [try entry(phone, "phone")])
        body[DeviceLimits.headerLength - 1] = UInt8(DeviceLimits.maxEntries + 1)
        #expect(refusal(DeviceList.signedBytes(body: body, account: account, signer: phone)) == .tooManyDevices)
    }

    @Test func revokedDevicesDoNotCountTowardsTheActiveBound() throws {
        let devices = (0..<(DeviceLimits.maxActiveDevices + 4)).map { Ed25519.PrivateKey(using: DeterministicRandom(seed: "device-list many \($0)")) }
        let entries = try devices.enumerated().map { index, device in
            let linked = try entry(device, "d")
            return index < 4 ? linked.revoked(at: t0 + 1) : linked
        }
        let signed = try DeviceList.sign(account: account, counter: 1, createdAt: t0, signer: devices[5], entries: entries)
        #expect(signed.activeDevices.count == DeviceLimits.maxActiveDevices)
    }

    @Test func theAccountKeyOrAnInvalidKeyIsNoDeviceKey() throws {
        let phoneEntry = try entry(phone, "phone")
        let asAccount = DeviceListEntry(unchecked: DeviceID(deviceKey: account.publicKey.signingKey), key: account.publicKey.signingKey, addedAt: t0,
                                        state: .active, revokedAt: 0, name: "account",
                                        proof: account.signingKey.signature(for: DeviceListEntry.proofTranscript(account: account.publicKey,
                                                                                                                   deviceKey: account.publicKey.signingKey)))
        #expect(refusal(crafted([phoneEntry, asAccount].sorted { $0.id < $1.id })) == .badDeviceKey)
        let smallOrder = try Ed25519.PublicKey(rawRepresentation: [0x01] + [UInt8](repeating: 0, count: 31))
        let invalid = DeviceListEntry(unchecked: DeviceID(deviceKey: smallOrder), key: smallOrder, addedAt: t0, state: .active, revokedAt: 0,
                                      name: "x", proof: [UInt8](repeating: 0, count: 64))
        #expect(refusal(crafted([phoneEntry, invalid].sorted { $0.id < $1.id })) == .badDeviceKey)
    }

    @Test func anIDThatIsNotItsKeysIsRefused() throws {
        let good = try entry(phone, "phone")
        let wrongID = DeviceListEntry(unchecked: DeviceID(deviceKey: laptop.publicKey), key: good.key, addedAt: good.addedAt, state: .active,
                                      revokedAt: 0, name: good.name, proof: good.proof)
        #expect(refusal(crafted([wrongID])) == .badDeviceID)
    }

    @Test func aDuplicateOrUnsortedDeviceIsRefused() throws {
        let a = try entry(phone, "phone"), b = try entry(laptop, "laptop")
        let (first, second) = a.id < b.id ? (a, b) : (b, a)
        #expect(refusal(crafted([first, first])) == .duplicateDevice)
        #expect(refusal(crafted([second, first])) == .notCanonical)
        #expect(refusal(crafted([first, second])) == nil)
    }

    @Test func aBadStateOrRevocationTimeIsRefused() throws {
        let good = try entry(phone, "phone"), laptopEntry = try entry(laptop, "laptop")
        func with(state: DeviceListEntry.State, revokedAt: UInt64) -> [UInt8] {
            let changed = DeviceListEntry(unchecked: laptopEntry.id, key: laptopEntry.key, addedAt: laptopEntry.addedAt, state: state,
                                          revokedAt: revokedAt, name: laptopEntry.name, proof: laptopEntry.proof)
            return crafted([good, changed].sorted { $0.id < $1.id })
        }
        #expect(refusal(with(state: .active, revokedAt: t0)) == .badState)
        #expect(refusal(with(state: .revoked, revokedAt: t0 - 1)) == .badState)
        #expect(refusal(with(state: .revoked, revokedAt: t0)) == nil)
        // A state byte other than 0x01 and 0x02.
        var bytes = crafted([good])
        bytes[DeviceLimits.headerLength + 16 + 32 + 8] = 0x03
        let body = Array(bytes[..<(bytes.count - 128)])
        #expect(refusal(DeviceList.signedBytes(body: body, account: account, signer: phone)) == .badState)
    }

    @Test func aNameTooLongEmptyOrUnsafeIsRefused() throws {
        let good = try entry(phone, "phone")
        func named(_ name: String) -> [UInt8] {
            crafted([DeviceListEntry(unchecked: good.id, key: good.key, addedAt: good.addedAt, state: .active, revokedAt: 0, name: name,
                                     proof: good.proof)])
        }
        #expect(refusal(named(String(repeating: "n", count: 65))) == .nameTooLong)
        #expect(refusal(named(String(repeating: "n", count: 64))) == nil)
        #expect(refusal(named("")) == .badName)
        #expect(refusal(named("evil\u{1B}[2J")) == .badName)
        #expect(refusal(named("photo\u{202E}gpj.exe")) == .badName)
        #expect(throws: ProtocolError.deviceListRefused(.nameTooLong)) { _ = try entry(phone, String(repeating: "é", count: 33)) }
        // Invalid UTF-8, written byte by byte.
        var bytes = named("ab")
        let nameAt = DeviceLimits.headerLength + DeviceLimits.entryFixedLength - 64
        bytes[nameAt] = 0xC3
        bytes[nameAt + 1] = 0x28
        #expect(refusal(DeviceList.signedBytes(body: Array(bytes[..<(bytes.count - 128)]), account: account, signer: phone)) == .badName)
    }

    @Test func trailingBytesInTheSignedBodyAreRefused() throws {
        let body = DeviceList.encodeBody(account: account.publicKey, counter: 1, createdAt: t0, signer: DeviceID(deviceKey: phone.publicKey),
                                         entries: [try entry(phone, "phone")]) + [0x00]
        #expect(refusal(DeviceList.signedBytes(body: body, account: account, signer: phone)) == .trailingBytes)
    }

    @Test func aListWithNoActiveDeviceIsRefused() throws {
        #expect(refusal(crafted([try entry(phone, "phone").revoked(at: t0)])) == .noActiveDevice)
        #expect(refusal(crafted([])) == .noActiveDevice)
    }

    @Test func aDeviceKeyWithoutItsHoldersProofIsRefused() throws {
        // The account claims the laptop's key, with a proof made for another account.
        let other = IdentityKeyPair.generate(using: DeterministicRandom(seed: "device-list other"), storage: .wiped)
        let theirs = try DeviceListEntry.linking(laptop, to: other.publicKey, name: "laptop", addedAt: t0)
        #expect(refusal(crafted([try entry(phone, "phone"), theirs].sorted { $0.id < $1.id })) == .badProof)
    }

    @Test func theSignerMustBeListedAndSign() throws {
        let entries = [try entry(phone, "phone")]
        #expect(refusal(crafted(signer: laptop, entries)) == .unknownSigner)
        var bytes = crafted(entries)
        bytes[bytes.count - 1] ^= 0x01
        #expect(refusal(bytes) == .badSignerSignature)
    }

    // MARK: §20.3 step 9: against the list held.

    @Test func aReplayedOldListIsRefused() throws {
        let first = try list(1, [try entry(phone, "phone")])
        let second = try list(2, [try entry(phone, "phone"), try entry(laptop, "laptop")])
        var verifier = DeviceListVerifier(account: account.publicKey)
        _ = try verifier.accept(first.encoded)
        _ = try verifier.accept(second.encoded)
        #expect(throws: ProtocolError.deviceListRefused(.notNewer)) { _ = try verifier.accept(first.encoded) }
        // The same counter with other contents (a concurrent list) is no newer either.
        let concurrent = try list(2, [try entry(phone, "phone"), try entry(server, "server")])
        #expect(throws: ProtocolError.deviceListRefused(.notNewer)) { _ = try verifier.accept(concurrent.encoded) }
        #expect(verifier.current == second)
        // Counter 0 is never newer.
        #expect(refusal(crafted(counter: 0, [try entry(phone, "phone")])) == .notNewer)
    }

    @Test func aRevokedDeviceCannotBeMadeActiveAgain() throws {
        let phoneEntry = try entry(phone, "phone"), laptopEntry = try entry(laptop, "laptop")
        var verifier = DeviceListVerifier(account: account.publicKey)
        _ = try verifier.accept(try list(1, [phoneEntry, laptopEntry]).encoded)
        guard case let .accepted(change) = try verifier.accept(try list(2, [phoneEntry, laptopEntry.revoked(at: t0 + 5)]).encoded) else {
            Issue.record("revocation not accepted"); return
        }
        #expect(change.revoked.map(\.id) == [laptopEntry.id] && change.fingerprintChanged)
        let unrevoking = try list(3, [phoneEntry, laptopEntry])
        #expect(throws: ProtocolError.deviceListRefused(.unrevoked)) { _ = try verifier.accept(unrevoking.encoded) }
        // Nor dropped (it could then come back).
        #expect(throws: ProtocolError.deviceListRefused(.droppedDevice)) { _ = try verifier.accept(try list(3, [phoneEntry]).encoded) }
        #expect(verifier.acceptedCounter == 2)
        // Its revocation may be re-dated (concurrent revocations merge to the earlier time); it stays revoked.
        guard case .accepted = try verifier.accept(try list(3, [phoneEntry, laptopEntry.revoked(at: t0 + 4)]).encoded) else {
            Issue.record("re-dated revocation not accepted"); return
        }
    }

    /// Every device holds the account key, so the laptop, once revoked, can
    /// still sign with it; what it cannot make is a list signed by a device
    /// active in the list its contacts hold.
    @Test func aRevokedDeviceCannotSignItselfBackIn() throws {
        let phoneEntry = try entry(phone, "phone"), laptopEntry = try entry(laptop, "laptop")
        var verifier = DeviceListVerifier(account: account.publicKey)
        _ = try verifier.accept(try list(1, [phoneEntry, laptopEntry]).encoded)
        _ = try verifier.accept(try list(2, [phoneEntry, laptopEntry.revoked(at: t0 + 5)]).encoded)
        let comeback = Ed25519.PrivateKey(using: DeterministicRandom(seed: "device-list laptop again"))
        let byLaptop = try list(3, signer: laptop, [phoneEntry, laptopEntry.revoked(at: t0 + 5), try entry(comeback, "laptop")])
        #expect(throws: ProtocolError.deviceListRefused(.signerNotActive)) { _ = try verifier.accept(byLaptop.encoded) }
        let byNewKey = try list(3, signer: comeback, [phoneEntry, laptopEntry.revoked(at: t0 + 5), try entry(comeback, "laptop")])
        #expect(throws: ProtocolError.deviceListRefused(.signerNotActive)) { _ = try verifier.accept(byNewKey.encoded) }
        // The phone, active, may add a device.
        guard case let .accepted(change) = try verifier.accept(try list(3, [phoneEntry, laptopEntry.revoked(at: t0 + 5), try entry(server, "server")]).encoded) else {
            Issue.record("not accepted"); return
        }
        #expect(change.added.map(\.name) == ["server"])
    }

    @Test func aDeviceKeyOrLinkDateCannotChange() throws {
        let phoneEntry = try entry(phone, "phone")
        var verifier = DeviceListVerifier(account: account.publicKey)
        _ = try verifier.accept(try list(1, [phoneEntry]).encoded)
        #expect(throws: ProtocolError.deviceListRefused(.changedDevice)) { _ = try verifier.accept(try list(2, [try entry(phone, "phone", at: t0 + 1)]).encoded) }
        // A rename is a change the list may make, and leaves the fingerprint alone.
        guard case let .accepted(change) = try verifier.accept(try list(2, [try phoneEntry.renamed("my phone")]).encoded) else {
            Issue.record("rename not accepted"); return
        }
        #expect(!change.fingerprintChanged && change.added.isEmpty)
    }

    @Test func aRefusedListChangesNothing() throws {
        let first = try list(1, [try entry(phone, "phone")])
        var verifier = DeviceListVerifier(account: account.publicKey)
        _ = try verifier.accept(first.encoded)
        var bad = try list(2, [try entry(phone, "phone"), try entry(laptop, "laptop")]).encoded
        bad[bad.count - 1] ^= 0x01
        #expect(throws: ProtocolError.deviceListRefused(.badSignerSignature)) { _ = try verifier.accept(bad) }
        #expect(verifier.current == first)
    }

    @Test func signingRefusesWhatAContactWouldRefuse() throws {
        #expect(throws: ProtocolError.deviceListRefused(.unknownSigner)) { _ = try list(1, signer: laptop, [try entry(phone, "phone")]) }
        #expect(throws: ProtocolError.deviceListRefused(.notNewer)) { _ = try list(0, [try entry(phone, "phone")]) }
    }

    // MARK: §20.4

    @Test func theFingerprintFollowsTheActiveDevicesOnly() throws {
        let phoneEntry = try entry(phone, "phone"), laptopEntry = try entry(laptop, "laptop")
        let one = try list(1, [phoneEntry]).fingerprint
        let two = try list(2, [phoneEntry, laptopEntry]).fingerprint
        let revoked = try list(3, [phoneEntry, laptopEntry.revoked(at: t0 + 9)]).fingerprint
        let renamed = try list(4, [try phoneEntry.renamed("p")]).fingerprint
        #expect(one.digits.count == 30 && one.grouped.split(separator: " ").count == 6)
        #expect(one != two && revoked == one && renamed == one)
        #expect(one.matches(displayed: one.grouped) && !one.matches(displayed: two.grouped))
    }
}
