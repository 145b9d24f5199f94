import HushCrypto
import HushMessenger
import HushProtocol
import HushTesting

/// Two devices of `account` for device tests, from `seed`: the first
/// device's list key ("desk", which keeps the account key at the relay)
/// and a linked tablet with its own key, with the account's list of the
/// desk alone (counter 1) and of both (counter 2), signed by the desk.
struct DeskAndTablet {
    let tablet: LocalDevice
    let first: DeviceList
    let second: DeviceList

    init(account: IdentityKeyPair, seed: String) throws {
        let random = DeterministicRandom(seed: seed)
        let desk = Ed25519.PrivateKey(using: random)
        let tabletSeed = SecureBytes(copying: random.bytes(32))
        tablet = try LocalDevice(seed: tabletSeed, account: account)
        let deskEntry = try DeviceListEntry.linking(desk, to: account.publicKey, name: "desk", addedAt: 1)
        let tabletEntry = try DeviceListEntry.linking(try Ed25519.PrivateKey(seed: tabletSeed), to: account.publicKey, name: "tablet",
                                                      addedAt: 2)
        first = try DeviceList.sign(account: account, counter: 1, createdAt: 1, signer: desk, entries: [deskEntry])
        second = try DeviceList.sign(account: account, counter: 2, createdAt: 2, signer: desk, entries: [deskEntry, tabletEntry])
    }
}
