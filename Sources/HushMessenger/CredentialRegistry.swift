/// The relay's record of the delivery credentials that let contacts past its
/// first-contact price (it holds their hashes only).
public protocol CredentialRegistry: Sendable {
    /// Registers the hashes of delivery credentials we hand to contacts and
    /// withdraws those we replaced (after blocking someone who held one).
    func updateDeliveryCredentials(add tokens: [[UInt8]], remove revoked: [[UInt8]]) async throws(DeliveryFailure)
}
