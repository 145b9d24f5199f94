/// An error that knows how a front end should report it: the process exit
/// code a script can branch on, and the one line a person reads.
///
/// Each module's errors conform next to their mapping (the files named
/// `…+UserFacing.swift`), so a front end never switches over other modules'
/// error types.
public protocol UserFacingError: Error {
    var exitCode: Int32 { get }
    var userMessage: String { get }
}

extension UserFacingError {
    /// The error's own description: the lower floors already word them for people.
    public var userMessage: String { String(describing: self) }
}
