import CSQLCipher
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates a database file readable by its owner only, without ever opening
/// or closing a descriptor of the file itself.
///
/// SQLite creates a new database with mode 0644 (less the umask), and its
/// -wal and -shm files take the database's mode, so the file must exist with
/// 0600 before SQLite first opens it. Creating it with `open(path, O_CREAT)`
/// and `close()` is not safe: POSIX record locks belong to a process and an
/// inode, and closing *any* descriptor of the inode drops every lock the
/// process holds on it, including those of a connection already open (a
/// second connection of the same process, a `BackgroundCheckpointer`). The
/// next process to close its connection then believes it is the last one,
/// checkpoints and deletes the log and shared memory under the first
/// (SQLite's "How To Corrupt An SQLite Database File", §2.2).
///
/// So the empty file is made under a fresh name (a new inode that no
/// connection can hold), and linked into place: `link` never replaces an
/// existing file, so a database created meanwhile by another process stays
/// as it is.
enum OwnerOnlyFile {
    static func createIfMissing(_ path: String) throws(DatabaseError) {
        if access(path, F_OK) == 0 { return }
        let temporary = path + ".new-" + String(UInt64.random(in: .min ... .max), radix: 36)
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create", path) }
        close(descriptor)
        defer { unlink(temporary) }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw failure("cannot create", path)
        }
    }

    private static func failure(_ action: String, _ path: String) -> DatabaseError {
        let code = errno
        return DatabaseError(kind: code == ENOSPC ? .diskFull : .ioFailure, resultCode: SQLITE_CANTOPEN,
                             message: "\(action) \(path): \(String(cString: strerror(code)))")
    }
}
