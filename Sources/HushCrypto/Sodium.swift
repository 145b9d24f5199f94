import CSodium

/// libsodium must be initialised once before any other call. A global `let`
/// is initialised lazily and exactly once by the runtime, even under
/// concurrency, which is what `sodium_init` asks for.
private let sodiumInitialisation: Int32 = sodium_init()

enum Sodium {
    /// Call at the top of every public entry point that reaches libsodium.
    @inline(__always)
    static func ensureInitialised() {
        // sodium_init returns 0 on first success, 1 when already initialised,
        // -1 when the library cannot be used (no entropy source, say).
        precondition(sodiumInitialisation >= 0, "libsodium could not be initialised")
    }
}
