import HushDatabase

extension DatabaseError: UserFacingError {
    /// Any SQLCipher failure means the database cannot be used as it is.
    public var exitCode: Int32 { ExitStatus.databaseUnusable.rawValue }
}
