#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-identity data directory (`hush` finds it from `--home DIR`,
/// `$HUSH_HOME` or `~/.hush`; an app names its own). The directory is 0700 and every file in it 0600, owned by the
/// current user; anything looser is refused rather than silently repaired,
/// because it means someone else may already have had a copy.
public struct DataDirectory: Sendable, Equatable {
    public static let keystoreName = "keystore"
    public static let databaseName = "messages.db"

    public let path: String

    public init(path: String) {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }


    public var keystorePath: String { path + "/" + DataDirectory.keystoreName }
    public var databasePath: String { path + "/" + DataDirectory.databaseName }

    public func file(_ name: String) -> String { path + "/" + name }

    public var exists: Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    public var hasKeystore: Bool { access(keystorePath, F_OK) == 0 }

    /// Something other than a directory is at `path` (a file given as the
    /// home): saying "no account yet, run hush init" there would send the
    /// user round in a circle.
    private var isOccupiedByAFile: Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR
    }

    /// Creates the directory 0700 when missing (parents as needed, with the
    /// user's umask), then checks every permission.
    public func create() throws(KeystoreError) {
        if isOccupiedByAFile { throw .io(operation: "make a data directory at", path: path, errno: ENOTDIR) }
        if !exists {
            try createParents()
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw .io(operation: "create the data directory", path: path, errno: errno)
            }
            // mkdir applies the umask; make the mode exact.
            if chmod(path, 0o700) != 0 {
                throw .io(operation: "set permissions on", path: path, errno: errno)
            }
        }
        try checkPermissions()
    }

    private func createParents() throws(KeystoreError) {
        var prefix = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        if path.hasPrefix("/") { prefix = "" } else { prefix = "." }
        for component in components {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw .io(operation: "create", path: prefix, errno: errno)
            }
        }
    }

    /// Refuses a directory, or any file in it, that others can reach or that
    /// another user owns.
    public func checkPermissions() throws(KeystoreError) {
        if isOccupiedByAFile { throw .io(operation: "open the data directory", path: path, errno: ENOTDIR) }
        guard exists else { throw .noIdentity(home: path) }
        try check(path, isDirectory: true)
        guard let directory = opendir(path) else {
            throw .io(operation: "read the data directory", path: path, errno: errno)
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name == "." || name == ".." { continue }
            try check(file(name), isDirectory: false)
        }
    }

    private func check(_ target: String, isDirectory: Bool) throws(KeystoreError) {
        var info = stat()
        guard lstat(target, &info) == 0 else {
            throw .io(operation: "inspect", path: target, errno: errno)
        }
        guard info.st_uid == getuid() else { throw .wrongOwner(path: target) }
        if info.st_mode & 0o077 != 0 {
            throw .badPermissions(path: target, mode: UInt32(info.st_mode))
        }
    }
}
