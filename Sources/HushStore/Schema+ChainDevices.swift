import HushDatabase

extension Schema {
    /// Version 35: the device a contact's sender chain came from
    /// (docs/PROTOCOL.md §20.12, §20.17). Each device of a member has a
    /// chain of its own, distributed on its device session; a member who
    /// cannot open a group message asks the device whose chain signed it,
    /// since only that device keeps what it sealed to send it again. NULL:
    /// the chain came on the account-key session (an account of one
    /// device, or its first device), or before this version.
    static func addChainDevices(_ db: Database) throws {
        try db.execute("ALTER TABLE sender_chains ADD COLUMN device_key BLOB")
    }
}
