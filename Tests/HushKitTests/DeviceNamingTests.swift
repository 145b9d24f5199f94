import HushCrypto
@testable import HushKit
import HushProtocol
import HushTesting
import Testing

/// How `hush device revoke NAME` finds a device in the account's list: by its
/// name, or by at least 4 hex digits of its id; fewer digits say so.
@Suite struct DeviceNamingTests {
    let account = IdentityKeyPair.generate(using: DeterministicRandom(seed: "naming account"), storage: .wiped)
    let desk = Ed25519.PrivateKey(using: DeterministicRandom(seed: "naming desk"))
    let laptop = Ed25519.PrivateKey(using: DeterministicRandom(seed: "naming laptop"))

    func list() throws -> DeviceList {
        let entries = try [(desk, "desk"), (laptop, "laptop")].map { key, name in
            try DeviceListEntry.linking(key, to: account.publicKey, name: name, addedAt: 1_795_000_000_000)
        }
        return try DeviceList.sign(account: account, counter: 2, createdAt: 1_795_000_000_002, signer: desk, entries: entries)
    }

    @Test func aDeviceIsFoundByNameOrByFourHexDigitsOfItsIdAndFewerDigitsSaySo() throws {
        let list = try list()
        let laptopID = DeviceID(deviceKey: laptop.publicKey).description
        #expect(try HushAccount.device(named: "laptop", in: list).name == "laptop")
        #expect(try HushAccount.device(named: String(laptopID.prefix(4)).uppercased(), in: list).name == "laptop")

        let short = String(laptopID.prefix(3))
        let error = try #require(throws: HushError.self) { try HushAccount.device(named: short, in: list) }
        #expect(error.reason.contains("at least 4 of its hex digits"), "\(error.reason)")
        let unknown = try #require(throws: HushError.self) { try HushAccount.device(named: "phone", in: list) }
        #expect(unknown.reason.contains("no device named phone"), "\(unknown.reason)")
    }
}
