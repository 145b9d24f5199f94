import ArgumentParser

/// The one rule for names the user gives contacts (`contact add`,
/// `requests accept --name`): 1 to 64 characters, not only spaces.
enum ContactNameRule {
    static let maximumLength = 64

    static func check(_ name: String) throws {
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= maximumLength else {
            throw ValidationError("the contact name must be 1 to \(maximumLength) characters")
        }
    }
}
