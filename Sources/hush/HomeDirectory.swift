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
    /// A directory reached through a symbolic link is the link's target: its
    /// permissions are the target's (a link's own mode, 777, drew "open to
    /// other users: chmod 600 LINK", which made the target unusable), and a
    /// daemon of the target serves the link too.
    static func resolve(home: String?, environment: [String: String]) throws(HushError) -> String {
        if let home {
            // An empty --home (a variable that was not set) would have meant ~/.hush: another account.
            guard !home.isEmpty else {
                throw HushError(.invalidInput, reason: "--home is empty", suggestion: "give the data directory, or leave --home out for $HUSH_HOME or ~/.hush")
            }
            return followingLink(home)
        }
        if let fromEnvironment = environment[environmentVariable], !fromEnvironment.isEmpty { return followingLink(fromEnvironment) }
        guard let userHome = environment["HOME"], !userHome.isEmpty else {
            // No HOME and no choice made: ask for one rather than guess.
            throw HushError(.storage, reason: "could not find the data directory (set --home or HUSH_HOME) ~/.hush: \(String(cString: strerror(ENOENT)))")
        }
        return userHome + "/.hush"
    }

    /// `path`, or the directory it links to when it is a symbolic link to one.
    private static func followingLink(_ path: String) -> String {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK,
              let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` made absolute (against the working directory) and without `.`
    /// or `..`: how a daemon and its clients compare the directory they mean.
    static func absolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: absolute).standardizedFileURL.path
    }
}
