import Foundation

/// The `sqlcipher` command line (Debian package `sqlcipher`): another
/// process opening a database file, as a user or a tool would.
enum SQLCipherCommandLine {
    static let path = "/usr/bin/sqlcipher"

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Runs `sqlcipher ARGUMENTS` to the end: its exit status and what it printed (stdout and stderr).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
