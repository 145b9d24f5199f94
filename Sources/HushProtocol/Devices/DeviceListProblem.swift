/// Why a device list was refused (docs/PROTOCOL.md §20.3). The raw value is
/// the rule's name, as `device-list.json` writes it; when several rules are
/// broken, the first in §20.3's order is reported. The names go to the local
/// user and to logs, never back to whoever sent the list.
public enum DeviceListProblem: String, Sendable, Equatable, CaseIterable {
    case unsupportedVersion
    case truncated
    case tooLong
    case wrongAccount
    case badSignature
    case tooManyDevices
    case badDeviceKey
    case badDeviceID
    case duplicateDevice
    case notCanonical
    case badState
    case nameTooLong
    case badName
    case trailingBytes
    case noActiveDevice
    case accountKeyTwice
    case badProof
    case unknownSigner
    case badSignerSignature
    case notNewer
    case signerNotActive
    case droppedDevice
    case unrevoked
    case changedDevice

    /// What went wrong, in words for the user.
    public var explanation: String {
        switch self {
        case .unsupportedVersion: return "its version is not one this Hush knows (update Hush)"
        case .truncated: return "it ends early"
        case .tooLong: return "it is longer than any device list can be"
        case .wrongAccount: return "it belongs to another account"
        case .badSignature: return "the account's signature does not verify"
        case .tooManyDevices: return "it lists more devices than the protocol allows"
        case .badDeviceKey: return "it lists a device key that is not a valid key, or is the account key"
        case .badDeviceID: return "a device id does not match its device key"
        case .duplicateDevice: return "it lists a device twice"
        case .notCanonical: return "its devices are not in the canonical order"
        case .badState: return "a device's state or revocation time is invalid"
        case .nameTooLong: return "a device name is longer than 64 bytes"
        case .badName: return "a device name is empty, not UTF-8, or holds a control or bidirectional formatting character"
        case .trailingBytes: return "it has bytes after its last device"
        case .noActiveDevice: return "it lists no active device"
        case .accountKeyTwice: return "it marks more than one device as the one keeping the account key"
        case .badProof: return "a device's proof that it holds its key does not verify"
        case .unknownSigner: return "the device that signed it is not in it"
        case .badSignerSignature: return "the signing device's signature does not verify"
        case .notNewer: return "it is not newer than the list already accepted (a replay?)"
        case .signerNotActive: return "it was signed by a device that is not active in the list already accepted"
        case .droppedDevice: return "it leaves out a device of the list already accepted"
        case .unrevoked: return "it makes a revoked device active again"
        case .changedDevice: return "it changes a device's key, the date it was linked, or which device keeps the account key"
        }
    }
}
