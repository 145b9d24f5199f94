import HushCrypto
import HushProtocol
import HushStore

/// The account's recovery key on every device of the account
/// (docs/PROTOCOL.md §20.14): a revocation replaces it on the revoking
/// device, since the revoked one holds the old key, and the new key goes to
/// each of the account's other active devices (content `0x18`), on the
/// sessions with them, after the list that revokes the device; a device
/// that starts a session later gets it with our contacts. Each device keeps
/// the key with the higher list counter, so keys handed on in any order
/// settle on the newest; the backups a device makes afterwards are sealed
/// under it.
enum OwnRecoveryKey {
    /// The key kept here as a content for our other devices; nil when no
    /// revocation replaced the keystore's key.
    static func content(_ dependencies: MessengerDependencies) throws -> [UInt8]? {
        guard let kept = try dependencies.store.recoveryKeys.current() else { return nil }
        return try Content(id: MessageID.random(using: dependencies.random), sentAt: UInt64(dependencies.clock.now()),
                           body: .recoveryKey(listCounter: kept.listCounter, key: kept.key)).encoded()
    }

    /// Keeps `key`, sent by another active device of ours, when its list
    /// counter is above the one kept. A counter above our newest list is
    /// refused: the list that revoked a device goes before the key on the
    /// session, so no honest device sends one. Joins the caller's transaction.
    static func adopt(_ key: SecureBytes, listCounter: UInt64, _ dependencies: MessengerDependencies) throws {
        guard let latest = try dependencies.store.deviceLists.latestCounter(), listCounter <= latest else {
            throw MessengerError.protocolFailure("another device of this account sent a recovery key for device list \(listCounter), which this device does not hold")
        }
        try dependencies.store.recoveryKeys.keepIfNewer(key, listCounter: listCounter)
    }
}
