import HushTesting

/// Where the `hush` executable built for these tests lives (`BuiltBinary`).
/// A missing one is named in the error of the first child that fails to start.
enum HushBinary {
    static let path: String = (try? BuiltBinary.hush) ?? "hush-binary-not-found"
}
