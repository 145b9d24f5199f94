import HushProtocol

/// An account's devices as its signed device list names them (docs/PROTOCOL.md
/// §20.2), with the list's fingerprint (§20.4): the 30 digits both sides of
/// a conversation see for that account's active devices, to compare as a
/// safety number is compared.
public struct DeviceListSummary: Sendable, Equatable {
    /// Every device listed, active and revoked, in list order.
    public let devices: [LinkedDevice]
    /// Six groups of five digits; it changes exactly when the set of active
    /// devices (or one of their keys) changes, not on a rename.
    public let fingerprint: String
    /// The list's counter: how many lists the account signed up to this one.
    public let counter: UInt64

    init(_ list: DeviceList, thisDevice: DeviceID?, linkInterrupted: DeviceID? = nil) {
        devices = list.entries.map { LinkedDevice($0, thisDevice: thisDevice, linkInterrupted: $0.id == linkInterrupted && $0.isActive) }
        fingerprint = list.fingerprint.grouped
        counter = list.counter
    }
}
