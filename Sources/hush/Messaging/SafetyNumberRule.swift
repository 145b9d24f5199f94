/// Digits given to compare with a safety number that cannot be one: not all
/// 60 (a read-out cut short, a group missed). Said as such, never as a
/// mismatch, which would tell the person someone may be in the middle; and
/// checked before anything is compared, so nothing changes.
enum SafetyNumberRule {
    static func check(_ code: String) throws {
        let compact = code.filter { !$0.isWhitespace && $0 != "-" }
        guard !compact.isEmpty, compact.allSatisfy(\.isASCII), compact.allSatisfy(\.isHexDigit) else {
            throw CommandError(.usage, "that is not a safety number: give its 60 digits (spaces or dashes between the groups are fine), "
                + "or the hex content of a scanned code; nothing was compared or changed")
        }
        guard compact.allSatisfy(\.isNumber), compact.count != 60 else { return }
        throw CommandError(.usage, "a safety number has 60 digits (12 groups of 5) and \(compact.count) were given: "
            + "ask for all of them and compare again; nothing was compared or changed")
    }
}
