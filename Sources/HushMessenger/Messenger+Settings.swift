import HushStore

/// Named settings a layer above keeps in the store (a backup schedule,
/// say), read and written on the messenger's connection so they join its
/// order of writes instead of competing with it from a second one.
extension Messenger {
    /// The values of `names` that are set.
    public func settings(_ names: [String]) throws -> [String: String] {
        var values: [String: String] = [:]
        for name in names { values[name] = try store.settings.value(name) }
        return values
    }

    /// Sets each of `values` (nil: removes it), all in one transaction.
    public func setSettings(_ values: [String: String?]) throws {
        try store.write { store in
            for (name, value) in values { try store.settings.set(name, to: value) }
        }
    }
}
