/// The names `hush export` gives what it writes. A name a peer chose (a
/// file's, a group's) never becomes a path as it is: only ASCII letters,
/// digits, '.', '-' and '_' are kept, everything else becomes '_', leading
/// dots go, and an id in front keeps names apart; so no name can hold a
/// '/', be '..', hide as a dot file or escape the export folder.
enum ExportNames {
    /// The file of attachment `id` under `files/`.
    static func file(id: Int64, peerName: String) -> String {
        "files/\(id)-\(safe(peerName, fallback: "file"))"
    }

    /// `text` reduced to a safe file name component of at most `length` characters.
    static func safe(_ text: String, fallback: String, length: Int = 80) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let kept = scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                                          || scalar == "." || scalar == "-" || scalar == "_")
            scalars.append(kept ? scalar : "_")
        }
        let name = String(String(scalars).drop(while: { $0 == "." }).prefix(length))
        return name.isEmpty ? fallback : name
    }

    /// The Markdown file of each conversation, in order: `contact-NAME.md` or
    /// `group-NAME.md`, made unique by a number when two reduce to the same.
    static func markdownFiles(_ conversations: [ExportedConversation]) -> [String] {
        var taken: Set<String> = []
        return conversations.map { conversation in
            let base = "\(conversation.kind.rawValue)-\(safe(conversation.name, fallback: "unnamed"))"
            var name = base + ".md"
            var number = 2
            while !taken.insert(name).inserted {
                name = "\(base)-\(number).md"
                number += 1
            }
            return name
        }
    }
}
