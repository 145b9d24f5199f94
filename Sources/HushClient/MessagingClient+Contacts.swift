import HushCrypto
import HushMessenger
import HushProtocol
import HushStore

/// Contacts, message requests and safety numbers.
extension MessagingClient {
    public func addContact(name: String, address: String) async throws -> Contact {
        try await messenger.addContact(name: name, address: address)
    }

    public func contacts() async throws -> [Contact] { try await messenger.contacts() }

    public func removeContact(name: String) async throws { try await messenger.removeContact(name: name) }

    public func acceptIdentityChange(name: String) async throws { try await messenger.acceptIdentityChange(name: name) }

    public func messageRequests(blocked: Bool = false) async throws -> [MessageRequest] {
        try await messenger.messageRequests(blocked: blocked)
    }

    /// Message requests kept at once (a newer one takes the place of the one that waited longest).
    public static let maxMessageRequests = Messenger.defaultMaxMessageRequests

    /// How many message requests were removed to make room for newer ones.
    public func messageRequestsRemovedForRoom() async throws -> Int {
        try await messenger.messageRequestsRemovedForRoom()
    }

    public func acceptRequest(name: String, renameTo newName: String?) async throws -> Contact {
        try await messenger.acceptRequest(name: name, renameTo: newName)
    }

    public func block(name: String) async throws { try await messenger.block(name: name) }

    public func safetyNumber(with name: String) async throws -> (number: SafetyNumber, contact: Contact) {
        try await messenger.safetyNumber(with: name)
    }

    /// Checks a code against the safety number with `name`: the 60 digits read
    /// out (spaces ignored) or the hex of a scanned code. A match marks the
    /// contact verified.
    public func compareSafetyNumber(with name: String, code: String) async throws -> Bool {
        let (number, _) = try await messenger.safetyNumber(with: name)
        let compact = code.filter { !$0.isWhitespace }
        if compact.allSatisfy(\.isASCII), compact.allSatisfy(\.isNumber) {
            guard compact.count == 60 else { return false }  // TEMPORARY: this file goes with HushClient
            return try await messenger.verify(name: name, displayed: compact)
        }
        // The scanned code: the contact's serialized scannable fingerprint, in hex.
        guard let scanned = try? Hex.decode(compact), (try? number.scannable.matches(scanned: scanned)) == true else { return false }
        return try await messenger.verify(name: name, displayed: number.digits)
    }
}

/// The display name contacts see.
extension MessagingClient {
    public func displayName() async throws -> String? { try await messenger.displayName() }

    /// Sets it and queues it for every accepted contact; returns how many.
    public func setDisplayName(_ name: String) async throws -> Int { try await messenger.setDisplayName(name) }
}
