import HushProtocol

/// The relay's device directories (docs/PROTOCOL.md §20.9): an account's
/// current device list, found by anyone who knows its address. Read to
/// catch up with a contact's devices; like `BlobTransfer` it is not part of
/// `RelayTransport`, so a transport without it (a test double) reads none.
public protocol DeviceDirectoryLookup: Sendable {
    /// The list in `account`'s directory, opened and checked (§20.9, §20.3
    /// steps 1–8; whether it may replace a list held is the caller's);
    /// nil when the relay holds none.
    func deviceList(of account: IdentityKey) async throws(DeliveryFailure) -> DeviceList?
}
