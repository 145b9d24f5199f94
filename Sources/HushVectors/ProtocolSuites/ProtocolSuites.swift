/// The protocol's vector suites, for the runner to register.
public enum ProtocolSuites {
    public static let all: [any VectorSuite] = [
        AddressSuite(), HandshakeSuite(), FirstMessageSuite(), RatchetSuite(), PaddingSuite(),
        SealedSenderSuite(), ContentSuite(), AttachmentSuite(), HushSafetyNumberSuite(), LibsignalFingerprintSuite(), SenderKeySuite(), GroupSuite(), BackupSuite(),
        DeviceListSuite(), LinkCodeSuite(), DeviceDirectorySuite(), LargeGroupSuite(),
    ]
}
