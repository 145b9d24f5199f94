import ArgumentParser
import HushKit

/// The one rule for names the user gives (`contact add`, `requests accept
/// --name`, `group create`, `group rename`): not blank and not too long,
/// checked before the account is opened, so a bad name is a usage error
/// (exit 64). A contact's name also holds no control characters: it is
/// printed as it is in every line that mentions the contact, so an escape
/// sequence in it would drive the terminal, and a line break would split
/// what scripts read line by line. A group's name is not checked for them:
/// any member's client can set one, so every place that shows a group name
/// defuses it anyway (TerminalEscapeTests), and refusing them here would
/// only keep the tests from proving that.
enum NameRule {
    /// A contact's name: 1 to 64 characters (it stays on this device).
    static let contactLength = 64

    static func checkContact(_ name: String) throws {
        try check(name, what: "contact name", length: name.count, limit: "1 to \(contactLength) characters", fits: name.count <= contactLength)
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = "U+" + String(control.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw ValidationError("the contact name holds a control character (\(code)): use letters, digits, spaces and punctuation")
        }
    }

    /// A group's name: 1 to `Group.maxNameBytes` bytes of UTF-8 (it travels in the group's state).
    static func checkGroup(_ name: String) throws {
        let bytes = name.utf8.count
        try check(name, what: "group name", length: bytes, limit: "1 to \(Group.maxNameBytes) bytes", fits: bytes <= Group.maxNameBytes)
    }

    private static func check(_ name: String, what: String, length: Int, limit: String, fits: Bool) throws {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("the \(what) is blank: give \(limit), not only spaces")
        }
        guard fits else { throw ValidationError("the \(what) must be \(limit), not \(length)") }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
