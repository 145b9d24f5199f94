import Foundation

extension Testbed {
    /// A relay whose first-contact limit per address suits several users on
    /// one loopback address: members a group introduces write to each other
    /// first as strangers (with proof of work), which the default limit of
    /// ten per address and a minute would slow to one a minute here.
    static func forGroups(_ label: String) throws -> Testbed {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hush-group-relay-\(UUID().uuidString).yaml")
        try "rate-limits:\n  first-contact-per-address-burst: 200\n  first-contact-work-bits: \(testWorkBits)\n"
            .write(to: config, atomically: true, encoding: .utf8)
        return try Testbed(label, relayOptions: ["--config", config.path])
    }
}
