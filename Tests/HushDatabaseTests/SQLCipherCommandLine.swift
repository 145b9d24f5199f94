import HushTesting

/// The `sqlcipher` command line (Debian package `sqlcipher`): another
/// process opening a database file, as a user or a tool would.
enum SQLCipherCommandLine {
    static let path = "/usr/bin/sqlcipher"

    static var isInstalled: Bool { CommandLineTool.isInstalled(path) }

    /// Runs `sqlcipher ARGUMENTS` to the end: its exit status and what it printed (stdout and stderr).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try CommandLineTool.run(path, arguments)
    }
}
