/// Digits given to compare with a safety number that cannot be one: not
/// all 60 (a read-out cut short, a group missed). Said as such, never as a
/// mismatch, which would tell the person someone may be in the middle.
public struct SafetyNumberInputError: UserFacingError, Equatable, CustomStringConvertible {
    public let digitCount: Int

    public var exitCode: Int32 { ExitStatus.usage.rawValue }

    public var description: String {
        "a safety number has 60 digits (12 groups of 5) and \(digitCount) were given: ask for all of them and compare again; "
            + "nothing was compared or changed"
    }
}
