import HushStore

extension StoreError: UserFacingError {
    public var exitCode: Int32 {
        if case .databaseMissing = self { return ExitStatus.databaseUnusable.rawValue }
        return ExitStatus.failure.rawValue
    }

    /// The store's words with the `hush` command that helps.
    public var userMessage: String {
        guard case .databaseMissing = self else { return description }
        return description + " To start over with an empty database instead (contacts must then be added again), run `hush doctor --new-database`."
    }
}
