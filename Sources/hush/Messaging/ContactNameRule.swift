import ArgumentParser

/// The one rule for names the user gives contacts (`contact add`,
/// `requests accept --name`): 1 to 64 characters, not only spaces, and no
/// control characters: a name is printed as it is in every line that
/// mentions the contact, so an escape sequence in it would drive the
/// terminal, and a line break would split what scripts read line by line.
enum ContactNameRule {
    static let maximumLength = 64

    static func check(_ name: String) throws {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("the contact name is blank: give 1 to \(maximumLength) characters, not only spaces")
        }
        guard name.count <= maximumLength else {
            throw ValidationError("the contact name must be 1 to \(maximumLength) characters, not \(name.count)")
        }
        if let control = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = "U+" + String(control.value, radix: 16, uppercase: true).leftPadded(to: 4)
            throw ValidationError("the contact name holds a control character (\(code)): use letters, digits, spaces and punctuation")
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
