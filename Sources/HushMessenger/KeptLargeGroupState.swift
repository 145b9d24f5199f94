import HushCrypto
import HushProtocol

/// A large group's state as this device keeps it once applied
/// (docs/PROTOCOL.md §18.4): the membership without its secret, which is
/// forgotten once every member's chain is derived, the envelope key (§18.3,
/// to open what is sealed under the state) and the digest of the state as
/// it was written (the tie-break between two states of one epoch, §18.2,
/// which cannot be computed again without the secret).
///
///     envelope key (32) || digest (32) || large state with an all-zero secret
struct KeptLargeGroupState {
    let state: LargeGroupState
    let envelopeKey: SecureBytes
    let digest: [UInt8]

    /// Keeps what `state` gives without its secret.
    init(forgetting state: LargeGroupState) throws {
        self.state = try LargeGroupState(groupID: state.groupID, epoch: state.epoch, secret: SecureBytes(count: GroupLimits.secretLength),
                                         name: state.name, members: state.members)
        envelopeKey = try state.envelopeKey()
        digest = state.digest
    }

    private init(state: LargeGroupState, envelopeKey: SecureBytes, digest: [UInt8]) {
        self.state = state
        self.envelopeKey = envelopeKey
        self.digest = digest
    }

    var epoch: UInt32 { state.epoch }

    /// The same state with an all-zero envelope key: what a device keeps of a
    /// group it is no longer in, to show it (`GroupDeparture`).
    func forgettingEnvelopeKey() -> KeptLargeGroupState {
        KeptLargeGroupState(state: state, envelopeKey: SecureBytes(count: 32), digest: digest)
    }

    /// The local form (it holds the envelope key: the store encrypts it).
    var encoded: [UInt8] {
        var out: [UInt8] = []
        envelopeKey.withUnsafeBytes { out.append(contentsOf: $0) }
        return out + digest + state.encoded
    }

    static func decode(_ bytes: [UInt8]) throws -> KeptLargeGroupState {
        guard bytes.count > 64 else { throw MessengerError.missingLocalState("a large group's kept state (truncated)") }
        return KeptLargeGroupState(state: try LargeGroupState.decode(Array(bytes[64...])), envelopeKey: SecureBytes(copying: bytes[0..<32]),
                                   digest: Array(bytes[32..<64]))
    }

    /// Whether `incoming` replaces this state: a later epoch, or the same
    /// epoch with a lower digest (§18.2, with §18.4's digest).
    func isSuperseded(by incoming: LargeGroupState) -> Bool {
        if incoming.epoch != epoch { return incoming.epoch > epoch }
        return incoming.digest.lexicographicallyPrecedes(digest)
    }
}
