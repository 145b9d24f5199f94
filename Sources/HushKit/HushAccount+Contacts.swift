import HushCrypto
import HushMessenger

/// Contacts and safety numbers.
extension HushAccount {
    /// Every contact: accepted ones, strangers whose requests wait, and blocked ones (see `Contact.standing`).
    public func contacts() async throws(HushError) -> [Contact] {
        try await guarded { try await messenger.contacts().map(Contact.init) }
    }

    /// The contact with id `id`.
    public func contact(_ id: ContactID) async throws(HushError) -> Contact {
        try await guarded { Contact(try await messenger.contact(id: id.rawValue)) }
    }

    /// Adds someone by the address they gave (hush1…) under `name`, a name
    /// for this account only. Compare safety numbers with them to verify it.
    public func addContact(name: String, address: String) async throws(HushError) -> Contact {
        try await guarded { Contact(try await messenger.addContact(name: name, address: address)) }
    }

    /// Removes the contact, its conversation and its session.
    public func removeContact(_ id: ContactID) async throws(HushError) {
        try await guarded { try await messenger.removeContact(name: try await messenger.contact(id: id.rawValue).name) }
    }

    /// Accepts a contact's changed identity key (after comparing the new
    /// safety number with them): sending resumes.
    public func acceptIdentityChange(of id: ContactID) async throws(HushError) {
        try await guarded { try await messenger.acceptIdentityChange(name: try await messenger.contact(id: id.rawValue).name) }
    }

    /// The display name this account sends its contacts, if it has one.
    public func displayName() async throws(HushError) -> String? {
        try await guarded { try await messenger.displayName() }
    }

    /// Sets the display name and sends it, sealed, to every accepted contact
    /// (contacts added later get it with the first message to them).
    ///
    /// - Returns: how many contacts it was queued for.
    /// - Throws: `HushError` of kind `invalidInput` for a name that is empty
    ///   or longer than 64 bytes.
    @discardableResult
    public func setDisplayName(_ name: String) async throws(HushError) -> Int {
        try await guarded { try await messenger.setDisplayName(name) }
    }

    /// The devices of a contact's account, as the last device list it sent
    /// names them (docs/PROTOCOL.md §20.11), with the list's fingerprint to
    /// compare with what the contact's `deviceList(in:keys:)` shows; nil
    /// when it sent none (an account of one device). A change of its devices
    /// is also announced in the conversation, as a `.deviceListChange` message.
    public func devices(ofContact id: ContactID) async throws(HushError) -> DeviceListSummary? {
        try await guarded {
            let name = try await messenger.contact(id: id.rawValue).name
            return try await messenger.deviceList(ofContact: name).map { DeviceListSummary($0, thisDevice: nil) }
        }
    }

    /// `devices(ofContact:)` after reading the contact's directory at the
    /// relay (docs/PROTOCOL.md §20.9), where the account keeps its latest
    /// list: a newer one there is checked against the one held and adopted
    /// (announced in the conversation, as one the contact sent would be).
    ///
    /// - Throws: `HushError` of kind `relayUnavailable` when the relay
    ///   cannot be asked, or `other` when the directory holds a list that is
    ///   refused (forged, one that makes a revoked device active again,
    ///   another account's); either way the list held stays.
    public func refreshDevices(ofContact id: ContactID) async throws(HushError) -> DeviceListSummary? {
        try await guarded {
            let name = try await messenger.contact(id: id.rawValue).name
            return try await messenger.refreshDeviceList(ofContact: name).map { DeviceListSummary($0, thisDevice: nil) }
        }
    }

    /// The safety number with a contact.
    public func safetyNumber(with id: ContactID) async throws(HushError) -> SafetyNumber {
        try await guarded {
            let (number, _) = try await messenger.safetyNumber(with: try await messenger.contact(id: id.rawValue).name)
            return SafetyNumber(digits: number.digits, scannableCode: number.scannable.serialized())
        }
    }

    /// Checks what the user compared against the safety number with a
    /// contact: the 60 digits they read out (spaces ignored), or the hex of
    /// the code they scanned. A match marks the contact verified.
    ///
    /// - Returns: whether it matched.
    /// - Throws: `HushError` of kind `invalidInput` for digits that are not 60.
    public func compareSafetyNumber(with id: ContactID, code: String) async throws(HushError) -> Bool {
        try await guarded {
            let name = try await messenger.contact(id: id.rawValue).name
            // Groups may be separated by spaces or dashes, as people write them down.
            let compact = code.filter { !$0.isWhitespace && $0 != "-" }
            guard !compact.isEmpty, compact.allSatisfy(\.isASCII), compact.allSatisfy(\.isHexDigit) else {
                // Not a number that differs: no number at all. Saying "they do not match" would
                // raise the alarm of someone in the middle over a typo.
                throw HushError(.invalidInput, reason: "that is not a safety number: 60 digits, or the hex content of a scanned code",
                                suggestion: "type the twelve groups of five digits as shown")
            }
            if compact.allSatisfy(\.isNumber) {
                guard compact.count == 60 else {
                    throw HushError(.invalidInput, reason: "a safety number has 60 digits, not \(compact.count)",
                                    suggestion: "compare all twelve groups of five")
                }
                return try await messenger.verify(name: name, displayed: compact)
            }
            let (number, _) = try await messenger.safetyNumber(with: name)
            // A short or damaged code is no code at all, not a mismatch (it raised the alarm over "abc").
            let notACode = HushError(.invalidInput, reason: "that is neither 60 digits nor a scanned safety number code (the hex content of the QR code `hush verify --qr` shows)",
                                     suggestion: "type the twelve groups of five digits as shown, or scan the code again")
            guard let scanned = try? Hex.decode(compact), let matched = try? number.scannable.matches(scanned: scanned) else { throw notACode }
            guard matched else { return false }
            return try await messenger.verify(name: name, displayed: number.digits)
        }
    }
}
