#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HushKeystore

/// Where `hush` finds the data directory: `--home DIR`, else `$HUSH_HOME`, else `~/.hush`.
extension DataDirectory {
    public static let environmentVariable = "HUSH_HOME"

    /// Resolves the directory from an explicit option, then the environment.
    public static func resolve(home: String?, environment: [String: String]) throws(KeystoreError) -> DataDirectory {
        if let home, !home.isEmpty { return DataDirectory(path: home) }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty {
            return DataDirectory(path: fromEnvironment)
        }
        guard let userHome = environment["HOME"], !userHome.isEmpty else {
            // No HOME and no choice made: ask for one rather than guess.
            throw .io(operation: "find the data directory (set --home or HUSH_HOME)", path: "~/.hush", errno: ENOENT)
        }
        return DataDirectory(path: userHome + "/.hush")
    }
}
