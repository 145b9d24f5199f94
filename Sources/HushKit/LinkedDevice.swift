import Foundation
import HushProtocol

/// One device of the account, as its signed device list names it
/// (docs/PROTOCOL.md §20.2).
public struct LinkedDevice: Sendable, Equatable {
    /// The device's id: 32 hex digits, derived from its key.
    public let id: String
    /// What the account calls it. Untrusted text when it came from another
    /// device: show it through a sanitiser.
    public let name: String
    /// When it was linked (the linking device's clock).
    public let addedAt: Date
    /// Whether it is active (not revoked).
    public let isActive: Bool
    /// When it was revoked (the revoking device's clock); nil while active.
    public let revokedAt: Date?
    /// Whether the list marks it as the device that kept the account key at
    /// the relay (§20.13): the list that revoked the account's first device.
    public let keptAccountKey: Bool
    /// Whether it is the device this home is.
    public let isThisDevice: Bool
    /// Whether this home added it by a link that was interrupted (its
    /// process killed) after the list naming it was published: it may have
    /// no history, or be nobody's. The next link from this home withdraws it
    /// (`InterruptedLink`); `revokeDevice` removes it now.
    public let linkInterrupted: Bool

    init(_ entry: DeviceListEntry, thisDevice: DeviceID?, linkInterrupted: Bool = false) {
        id = entry.id.description
        name = entry.name
        addedAt = Date(timeIntervalSince1970: Double(entry.addedAt) / 1000)
        isActive = entry.isActive
        revokedAt = entry.isActive ? nil : Date(timeIntervalSince1970: Double(entry.revokedAt) / 1000)
        keptAccountKey = entry.keepsAccountKey
        isThisDevice = entry.id == thisDevice
        self.linkInterrupted = linkInterrupted
    }
}
