import HushDatabase

/// Small named settings: the relay URL, our registration state, the sync cursor.
public struct SettingsRepository {
    let database: Database

    /// Names the store and the CLI agree on.
    public enum Name {
        public static let relayURL = "relay.url"
        /// The last server message id fetched from the relay.
        public static let syncCursor = "relay.sync_cursor"
        /// "registered" once the relay took this home's registration;
        /// `restoredRegistration` in a home restored from a backup until it
        /// registers (docs/PROTOCOL.md §19.4); absent before either.
        public static let registration = "relay.registration"
        public static let restoredRegistration = "restored"
        /// The `timestamp` of this home's last registration with the relay
        /// (ms): a relay holding a later one was registered by another home of
        /// the same key (docs/PROTOCOL.md §19.4, "One home per key").
        public static let registeredAt = "relay.registered_at"
        /// Set once this home learned that another home registered its key
        /// (the relay's registration time, ms): it then uses the relay no more.
        public static let replacedAt = "relay.replaced_at"
        /// In a home restored from a backup: when the archive was made (ms).
        public static let restoredFrom = "backup.restored_from"
        /// In a home restored from a backup made in a home another one had
        /// replaced: when that happened (ms), as the archived home knew it.
        public static let restoredFromReplacedHome = "backup.restored_from_replaced_home"
        /// The name given at `init` before profile names were sent: kept on this device only.
        public static let displayName = "profile.name"
        /// The display name sealed to contacts (docs/PROTOCOL.md §10.4). Only
        /// set on purpose (`hush init --name` since profile names exist,
        /// `hush profile --name`), so a name given when it stayed local is never
        /// sent without the user asking.
        public static let sharedDisplayName = "profile.shared_name"
        /// Our delivery credential (hex), which we give our contacts.
        public static let deliveryCredential = "relay.delivery_credential"
        /// Delivery credentials replaced after a block (hex, comma-separated):
        /// still registered at the relay until it confirms their removal.
        public static let revokedDeliveryCredentials = "relay.revoked_delivery_credentials"
        /// When the delivery credential was last replaced (ms, the replacing
        /// device's clock), which orders the credentials the account's
        /// devices hand each other (docs/PROTOCOL.md §20.16). Absent: never.
        public static let deliveryCredentialChangedAt = "relay.delivery_credential_changed_at"
        /// Contacts another device of the account added or accepted that we
        /// may hold no session with yet (ids, comma-separated): each gets one
        /// after the next pass (docs/PROTOCOL.md §20.16).
        public static let contactsToReach = "devices.contacts_to_reach"
        /// The relay session token and its expiry ("<ms> <token>"), kept between runs.
        public static let sessionToken = "relay.session_token"
        /// Received attachments up to this many bytes download at each sync (absent: none do).
        public static let autoDownloadMaxBytes = "attachments.auto_download_max_bytes"
        /// How many message requests were removed to make room for newer ones.
        public static let requestsRemovedForRoom = "requests.removed_for_room"
    }

    public func value(_ name: String) throws -> String? {
        try database.queryFirst("SELECT value FROM settings WHERE name = ?", [name]) { try $0.get(0, as: String.self) }
    }

    public func set(_ name: String, to value: String?) throws {
        if let value {
            try database.execute("INSERT OR REPLACE INTO settings(name, value) VALUES (?, ?)", [name, value])
        } else {
            try database.execute("DELETE FROM settings WHERE name = ?", [name])
        }
    }

    public func all() throws -> [(name: String, value: String)] {
        try database.query("SELECT name, value FROM settings ORDER BY name") { (try $0.get(0), try $0.get(1)) }
    }

    /// The relay sync cursor: the highest server id already fetched.
    public func syncCursor() throws -> Int64? {
        try value(Name.syncCursor).flatMap { Int64($0) }
    }

    /// Moves the cursor forward only: a late, smaller id never rewinds it.
    public func advanceSyncCursor(to serverId: Int64) throws {
        if let current = try syncCursor(), current >= serverId { return }
        try set(Name.syncCursor, to: String(serverId))
    }
}
