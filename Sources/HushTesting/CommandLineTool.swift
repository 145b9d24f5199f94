import Foundation

/// Another program run to its end, as a user or an operator would run it
/// (the sqlcipher command line, openssl): its exit status and everything it
/// printed, standard output and standard error together.
public enum CommandLineTool {
    /// Runs `executable ARGUMENTS`; `input` is its standard input (empty
    /// when nil, so a tool that reads it never waits on the test's terminal).
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), standardInput = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(Data(input.utf8)) }
        try standardInput.fileHandleForWriting.close()
        // Read before waiting: a tool that prints more than a pipe holds would never end.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Whether `path` is an executable file (the Debian package that has it may be missing).
    public static func isInstalled(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path)
    }
}
