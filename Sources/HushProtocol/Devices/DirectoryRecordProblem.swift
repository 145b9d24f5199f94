/// Why a directory record was refused (docs/PROTOCOL.md §20.9). The raw
/// value is the name `device-directory.json` writes. A list that opens but
/// breaks a rule of §20.3 is refused as `ProtocolError.deviceListRefused`.
public enum DirectoryRecordProblem: String, Sendable, Equatable, CaseIterable {
    case unsupportedVersion
    case wrongLength
    case notOpened
    case badPadding
    case counterMismatch

    public var explanation: String {
        switch self {
        case .unsupportedVersion: return "was written by a newer Hush; update Hush on this machine"
        case .wrongLength: return "has a length no record has"
        case .notOpened: return "does not open with this address's key: the relay returned a record that is not this account's"
        case .badPadding: return "is padded wrongly"
        case .counterMismatch: return "holds a list whose counter is not the one the relay gave: the relay mixed records"
        }
    }
}
