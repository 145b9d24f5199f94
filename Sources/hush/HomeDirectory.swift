#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HushKit

/// Where `hush` finds the data directory: `--home DIR`, else `$HUSH_HOME`, else `~/.hush`.
enum HomeDirectory {
    static let environmentVariable = "HUSH_HOME"

    /// Resolves the directory from an explicit option, then the environment.
    static func resolve(home: String?, environment: [String: String]) throws(HushError) -> String {
        if let home, !home.isEmpty { return home }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return fromEnvironment }
        guard let userHome = environment["HOME"], !userHome.isEmpty else {
            // No HOME and no choice made: ask for one rather than guess.
            throw HushError(.storage, reason: "could not find the data directory (set --home or HUSH_HOME) ~/.hush: \(String(cString: strerror(ENOENT)))")
        }
        return userHome + "/.hush"
    }

    /// `path` made absolute (against the working directory) and without `.`
    /// or `..`: how a daemon and its clients compare the directory they mean.
    static func absolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }
}
