import Foundation
import HushSubprocess

/// Another program run to its end, as a user or an operator would run it
/// (the sqlcipher command line, openssl, the built `hush`): its exit status
/// and everything it printed. Started through `Subprocess` (posix_spawn, never
/// Foundation's `Process`, whose `run` crashed full `make test` runs).
public enum CommandLineTool {
    /// Runs `executable ARGUMENTS`; `input` is its standard input (empty
    /// when nil, so a tool that reads it never waits on the test's terminal).
    /// Standard output and standard error together.
    public static func run(_ executable: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
        let result = try Subprocess.run(executable, arguments, input: input, mergingErrors: true)
        return (result.status, result.stdout)
    }

    /// Runs `executable ARGUMENTS` with `environment` (this process's when
    /// nil) and `input` on standard input; standard error apart from standard
    /// output unless `mergingErrors`. The status is the exit code, or 128 + the
    /// signal that ended it.
    public static func spawn(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String? = nil,
                             mergingErrors: Bool = false) throws -> (status: Int32, stdout: String, stderr: String) {
        try Subprocess.run(executable, arguments, environment: environment, input: input, mergingErrors: mergingErrors)
    }

    /// Whether `path` is an executable file (the Debian package that has it may be missing).
    public static func isInstalled(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path)
    }
}
