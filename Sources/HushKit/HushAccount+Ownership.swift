import HushKeystore

extension HushAccount {
    /// How a process holds an account's directory while the account is open.
    public enum Ownership: Sendable, Equatable {
        /// Beside other processes that hold it shared (commands, listeners, apps).
        case shared
        /// Alone: a daemon that serves everyone else through its socket.
        case exclusive
    }

    /// A process that holds an account's directory.
    public struct Holder: Sendable, Equatable, CustomStringConvertible {
        /// Its process id.
        public let pid: Int32
        /// Whether it holds the directory alone.
        public let ownership: Ownership
        /// The start of its command line (`hush daemon`, `hush listen`), when readable.
        public let command: String?

        /// "pid 4242 (hush daemon)".
        public var description: String { "pid \(pid)" + (command.map { " (\($0))" } ?? "") }
    }

    /// The processes holding `directory` now, without unlocking anything
    /// (empty when none, or on a system that does not list file locks).
    public static func holders(of directory: String) -> [Holder] {
        HomeLock.holders(in: DataDirectory(path: directory)).map {
            Holder(pid: $0.pid, ownership: $0.mode == .exclusive ? .exclusive : .shared, command: $0.command)
        }
    }

    /// Takes the directory's lock, or says who holds it.
    /// What an operation on the account in `directory` starts with: its
    /// keystore found, the home held with `mode`, the keystore unlocked with
    /// `keys`. The lock is the caller's to release, or to hand to the account
    /// it opens.
    static func unlockHome(_ directory: String, keys: KeyProvider,
                           _ mode: HomeLock.Mode) throws -> (home: DataDirectory, keystore: KeystoreFile, lock: HomeLock, contents: KeystoreContents) {
        let home = DataDirectory(path: directory)
        let keystore = KeystoreFile(directory: home)
        try keystore.requireExists()
        let lock = try Self.lock(home, mode)
        do {
            return (home, keystore, lock, try keys.unlock(keystore))
        } catch {
            lock.release()
            throw error
        }
    }

    static func lock(_ home: DataDirectory, _ mode: HomeLock.Mode) throws -> HomeLock {
        if let lock = try HomeLock.acquire(mode, in: home) { return lock }
        let holders = HomeLock.holders(in: home).map(\.description)
        let who = holders.isEmpty ? "another process" : holders.joined(separator: ", ")
        switch mode {
        case .exclusive:
            throw HushError(.homeInUse, reason: "the account in \(home.path) is in use by \(who)",
                            suggestion: "stop it, or let it finish, and try again (a daemon needs the account to itself)")
        case .shared:
            throw HushError(.homeInUse, reason: "the account in \(home.path) is owned by \(who)",
                            suggestion: "use it through that process (a daemon serves every command on its socket), or stop it first")
        }
    }
}
