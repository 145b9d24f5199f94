/// Where an account's daemon listens: a Unix socket in the account's directory.
public enum DaemonSocket {
    /// The socket's file name in the data directory.
    public static let fileName = "daemon.sock"
    /// The longest path a Unix socket address holds (sun_path, without its NUL).
    public static let maximumPathLength = 107

    /// The socket's path for the account in `home`.
    public static func path(home: String) -> String {
        (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/" + fileName
    }
}
