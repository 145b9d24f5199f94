/// Every suite `hush vectors` knows, by the "suite" name in a vector file.
public enum VectorSuites {
    public static let builtIn: [any VectorSuite] = ProtocolSuites.all + [
        X25519Suite(),
        Ed25519Suite(),
        AEADSuite.xChaCha20Poly1305,
        AEADSuite.chaCha20Poly1305,
        HKDFSuite(),
    ]
}
