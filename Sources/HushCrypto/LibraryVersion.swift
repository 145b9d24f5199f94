import CSodium

/// The libsodium serving this process, for `hush --version` and bug reports.
public enum CryptoLibrary {
    /// libsodium's own version string (the shared library loaded, not the headers built against).
    public static var sodiumVersion: String {
        Sodium.ensureInitialised()
        return String(cString: sodium_version_string())
    }
}
