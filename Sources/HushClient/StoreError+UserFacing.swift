import HushStore

extension StoreError: UserFacingError {
    public var exitCode: Int32 {
        if case .databaseMissing = self { return ExitStatus.databaseUnusable.rawValue }
        return ExitStatus.failure.rawValue
    }
}
