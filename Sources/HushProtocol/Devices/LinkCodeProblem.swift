/// Why a link code was refused (docs/PROTOCOL.md §20.5). The raw value is
/// the name `link-code.json` writes; the first failing step is reported.
public enum LinkCodeProblem: String, Sendable, Equatable, CaseIterable {
    case invalidCharacter
    case wrongLength
    case badPadding
    case badChecksum
    case unsupportedVersion
    case badRelay

    public var explanation: String {
        switch self {
        case .invalidCharacter: return "holds a character that is not in a link code; copy it again"
        case .wrongLength: return "has the wrong number of characters; check that it was copied completely"
        case .badPadding: return "has a wrong last character (a typo?); compare it with the code shown"
        case .badChecksum: return "has a typo: its checksum does not match; compare it with the code shown, group by group"
        case .unsupportedVersion: return "was made by a newer Hush; update Hush on this machine"
        case .badRelay: return "names a relay address that is not one; make a new code on the linked device"
        }
    }
}
