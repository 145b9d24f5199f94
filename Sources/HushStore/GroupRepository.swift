import HushDatabase

/// A group as this device keeps it: its conversation, local name, the
/// current membership state (encoded by the protocol layer; it holds the
/// envelope secret) and whether we are still in it.
public struct StoredGroup: Sendable, Equatable {
    public enum Standing: String, Sendable {
        /// We are a member.
        case member
        /// We left.
        case left
        /// An admin removed us.
        case removed
    }

    public let id: Int64
    public let groupID: [UInt8]
    public let conversationId: Int64
    public var name: String
    public var state: [UInt8]
    public var epoch: UInt32
    public var standing: Standing
    public let createdAt: Milliseconds
    /// A large group (docs/PROTOCOL.md §18.4): `state` is then the local form
    /// of a large state (its envelope key, the state without its secret),
    /// and its chains are in `member_chains`, one per member.
    public var isLarge: Bool = false
}

/// One member's sender chain for a group and epoch (ours when `isOwn`).
public struct StoredSenderChain: Sendable {
    public let epoch: UInt32
    public let signingKey: [UInt8]
    public let memberKey: [UInt8]
    public let stateDigest: [UInt8]?
    public let chain: [UInt8]
    /// The contact's device that distributed it (its key at the relay), or
    /// nil for its account key (schema version 35).
    public var deviceKey: [UInt8]? = nil
}

/// Groups, their kept states, sender chains, pending pairwise deliveries,
/// fan-out recipients and receipts per member (schema version 15).
public struct GroupRepository {
    let database: Database

    static let columns = "id, group_id, conversation_id, name, state, epoch, standing, created_at, kind"

    func decode(_ row: Row) throws -> StoredGroup {
        StoredGroup(id: try row.get(0), groupID: try row.get(1), conversationId: try row.get(2), name: try row.get(3),
                    state: try row.get(4), epoch: UInt32(clamping: try row.get(5, as: Int64.self)),
                    standing: StoredGroup.Standing(rawValue: try row.get(6)) ?? .removed, createdAt: try row.get(7),
                    isLarge: try row.get(8, as: String.self) == "large")
    }

    /// Creates a group and its conversation; `name` must be free among groups.
    /// `large`: a large group (§18.4), for its whole life.
    public func create(groupID: [UInt8], name: String, state: [UInt8], epoch: UInt32, large: Bool = false,
                       at time: Milliseconds) throws -> StoredGroup {
        try database.execute("INSERT INTO conversations(contact_id, title, created_at) VALUES (NULL, ?, ?)", [name, time])
        let conversation = database.lastInsertRowID
        try database.execute("""
            INSERT INTO groups(group_id, conversation_id, name, state, epoch, standing, created_at, kind) VALUES (?, ?, ?, ?, ?, 'member', ?, ?)
            """, [groupID, conversation, name, state, Int64(epoch), time, large ? "large" : "small"])
        return StoredGroup(id: database.lastInsertRowID, groupID: groupID, conversationId: conversation, name: name, state: state,
                           epoch: epoch, standing: .member, createdAt: time, isLarge: large)
    }

    public func group(named name: String) throws -> StoredGroup? {
        try database.queryFirst("SELECT \(Self.columns) FROM groups WHERE name = ?", [name], decode)
    }

    /// `wanted`, or `wanted-2`, `wanted-3`, …: the first group name not yet
    /// used here (a group that arrives may be named as one we have).
    public func freeName(_ wanted: String) throws -> String {
        var name = wanted
        var suffix = 2
        while try group(named: name) != nil {
            name = wanted + "-\(suffix)"
            suffix += 1
        }
        return name
    }

    public func group(row: Int64) throws -> StoredGroup? {
        try database.queryFirst("SELECT \(Self.columns) FROM groups WHERE id = ?", [row], decode)
    }

    public func group(groupID: [UInt8]) throws -> StoredGroup? {
        try database.queryFirst("SELECT \(Self.columns) FROM groups WHERE group_id = ?", [groupID], decode)
    }

    public func group(conversationId: Int64) throws -> StoredGroup? {
        try database.queryFirst("SELECT \(Self.columns) FROM groups WHERE conversation_id = ?", [conversationId], decode)
    }

    public func all() throws -> [StoredGroup] {
        try database.query("SELECT \(Self.columns) FROM groups ORDER BY name", [], decode)
    }

    /// Groups we are still in.
    public func active() throws -> [StoredGroup] {
        try database.query("SELECT \(Self.columns) FROM groups WHERE standing = 'member' ORDER BY id", [], decode)
    }

    /// Changes whenever a group key arrives here (a member's chain kept, a
    /// group created or moved to a new epoch): what a group message waiting
    /// for its key may open with. Two cheap aggregates, compared, not read.
    public func keysMark() throws -> [Int64] {
        [try database.queryFirst("SELECT count(*) FROM sender_chains") { try $0.get(0, as: Int64.self) } ?? 0,
         try database.queryFirst("SELECT count(*) + coalesce(sum(epoch), 0) FROM groups") { try $0.get(0, as: Int64.self) } ?? 0]
    }

    public func setState(_ state: [UInt8], epoch: UInt32, groupRow: Int64) throws {
        try database.execute("UPDATE groups SET state = ?, epoch = ? WHERE id = ?", [state, Int64(epoch), groupRow])
    }

    public func setStanding(_ standing: StoredGroup.Standing, groupRow: Int64) throws {
        try database.execute("UPDATE groups SET standing = ? WHERE id = ?", [standing.rawValue, groupRow])
    }

    public func rename(groupRow: Int64, to name: String) throws {
        try database.execute("UPDATE groups SET name = ? WHERE id = ?", [name, groupRow])
        try database.execute("UPDATE conversations SET title = ? WHERE id = (SELECT conversation_id FROM groups WHERE id = ?)", [name, groupRow])
    }

    // MARK: Kept states

    /// Keeps a state (to open envelopes sealed under it while they are in flight).
    public func keepState(_ state: [UInt8], digest: [UInt8], epoch: UInt32, groupRow: Int64) throws {
        try database.execute("INSERT OR IGNORE INTO group_states(group_row, digest, epoch, state) VALUES (?, ?, ?, ?)",
                             [groupRow, digest, Int64(epoch), state])
    }

    /// Kept states of a group, newest epoch first.
    public func keptStates(groupRow: Int64) throws -> [[UInt8]] {
        try database.query("SELECT state FROM group_states WHERE group_row = ? ORDER BY epoch DESC", [groupRow]) { try $0.get(0) }
    }

    /// Forgets states and chains of epochs below `epoch` (what was in flight then has had its time).
    public func forgetEpochs(below epoch: UInt32, groupRow: Int64) throws {
        try database.execute("DELETE FROM group_states WHERE group_row = ? AND epoch < ?", [groupRow, Int64(epoch)])
        try database.execute("DELETE FROM sender_chains WHERE group_row = ? AND epoch < ?", [groupRow, Int64(epoch)])
        try database.execute("DELETE FROM member_chains WHERE group_row = ? AND epoch < ?", [groupRow, Int64(epoch)])
    }

    /// Forgets every chain of one member (removed, or gone).
    public func forgetChains(of memberKey: [UInt8], groupRow: Int64) throws {
        try database.execute("DELETE FROM sender_chains WHERE group_row = ? AND member_key = ?", [groupRow, memberKey])
        try database.execute("DELETE FROM member_chains WHERE group_row = ? AND member_key = ?", [groupRow, memberKey])
    }

    /// Closes the chains of `memberKey` (removed) of epochs below `epoch`:
    /// they open only envelopes the relay stored by `time` (the relay's
    /// clock), or, with `time` nil (our own removal, made at `madeAt` by our
    /// clock), by the relay's time of our first deposit queued since
    /// (`settleClosures`). Chains of an earlier membership of it, closed
    /// before, are forgotten.
    public func closeChains(of memberKey: [UInt8], below epoch: UInt32, at time: Milliseconds?, madeAt: Milliseconds, groupRow: Int64) throws {
        if let earlier = try database.queryFirst("SELECT below_epoch FROM closed_member_chains WHERE group_row = ? AND member_key = ?",
                                                 [groupRow, memberKey], { try $0.get(0, as: Int64.self) }) {
            try database.execute("DELETE FROM sender_chains WHERE group_row = ? AND member_key = ? AND epoch < ?", [groupRow, memberKey, earlier])
        }
        try database.execute("""
            INSERT OR REPLACE INTO closed_member_chains(group_row, member_key, below_epoch, closed_at, made_at) VALUES (?, ?, ?, ?, ?)
            """, [groupRow, memberKey, Int64(epoch), time, madeAt])
    }

    /// How a member's chain of `epoch` stands after its removal.
    public enum ChainClosure: Equatable, Sendable {
        /// Opens what the relay stored at or before this time (its clock).
        case closed(at: Milliseconds)
        /// Removed by us, and no deposit of ours since has told the relay's time yet.
        case pending
    }

    /// Whether `memberKey`'s chain of `epoch` was closed (its removal); nil while it is open.
    public func chainClosure(memberKey: [UInt8], epoch: UInt32, groupRow: Int64) throws -> ChainClosure? {
        try database.queryFirst("""
            SELECT closed_at FROM closed_member_chains WHERE group_row = ? AND member_key = ? AND below_epoch > ?
            """, [groupRow, memberKey, Int64(epoch)]) { row in
            try row.get(0, as: Int64?.self).map { ChainClosure.closed(at: $0) } ?? .pending
        }
    }

    /// The removals whose closed chains could still open an envelope the
    /// relay stored at `storedAt` under a chain of `epoch`: each member's key
    /// and the epoch its removal took effect (`below_epoch` above `epoch`),
    /// when the removal is ours and not at the relay yet, or closed at or
    /// after `storedAt` (`GroupSenderKeys.open` waits for such a member's key).
    public func closuresThatMayOpen(epoch: UInt32, storedAt: Milliseconds, groupRow: Int64) throws -> [(memberKey: [UInt8], belowEpoch: UInt32)] {
        try database.query("""
            SELECT member_key, below_epoch FROM closed_member_chains
            WHERE group_row = ? AND below_epoch > ? AND (closed_at IS NULL OR closed_at >= ?)
            """, [groupRow, Int64(epoch), storedAt]) { row in
            (try row.get(0, as: [UInt8].self), UInt32(clamping: try row.get(1, as: Int64.self)))
        }
    }

    /// The epoch `memberKey`'s last removal took effect (the first state
    /// without it), while its closure is kept; nil without one.
    public func closureEpoch(memberKey: [UInt8], groupRow: Int64) throws -> UInt32? {
        try database.queryFirst("SELECT below_epoch FROM closed_member_chains WHERE group_row = ? AND member_key = ?", [groupRow, memberKey]) {
            UInt32(clamping: try $0.get(0, as: Int64.self))
        }
    }

    /// A deposit of a request queued at `queuedAt` (our clock) was stored
    /// by the relay at `time` (its clock): removals we made by then close
    /// there, since the relay had everything sent before them by then.
    public func settleClosures(queuedAt: Milliseconds, storedAt time: Milliseconds) throws {
        try database.execute("UPDATE closed_member_chains SET closed_at = ? WHERE closed_at IS NULL AND made_at <= ?", [time, queuedAt])
    }

    /// Forgets the chains closed before `time` (the relay has expired all
    /// they could still open; by our clock), and their records.
    public func forgetChains(closedBefore time: Milliseconds) throws {
        try database.execute("""
            DELETE FROM sender_chains WHERE EXISTS (
                SELECT 1 FROM closed_member_chains c WHERE c.group_row = sender_chains.group_row
                AND c.member_key = sender_chains.member_key AND sender_chains.epoch < c.below_epoch AND c.made_at < ?)
            """, [time])
        try database.execute("DELETE FROM closed_member_chains WHERE made_at < ?", [time])
    }

    /// Forgets every key of a group (we left or were removed); history stays.
    public func forgetKeys(groupRow: Int64) throws {
        try database.execute("DELETE FROM closed_member_chains WHERE group_row = ?", [groupRow])
        try database.execute("DELETE FROM group_states WHERE group_row = ?", [groupRow])
        try database.execute("DELETE FROM sender_chains WHERE group_row = ?", [groupRow])
        try database.execute("DELETE FROM member_chains WHERE group_row = ?", [groupRow])
    }

    /// Drops what waits to be sealed for the group's members.
    public func forgetDeliveries(groupRow: Int64) throws {
        try database.execute("DELETE FROM group_deliveries WHERE group_row = ?", [groupRow])
    }

    // MARK: Sender chains

    /// `deviceKey`: the contact's device that distributed the chain, nil
    /// for its account key or our own chains.
    public func saveChain(_ chain: [UInt8], epoch: UInt32, signingKey: [UInt8], memberKey: [UInt8], stateDigest: [UInt8]?,
                          groupRow: Int64, deviceKey: [UInt8]? = nil) throws {
        try database.execute("""
            INSERT OR REPLACE INTO sender_chains(group_row, epoch, signing_key, member_key, state_digest, chain, device_key)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [groupRow, Int64(epoch), signingKey, memberKey, stateDigest, chain, deviceKey])
    }

    public func chain(epoch: UInt32, signingKey: [UInt8], groupRow: Int64) throws -> StoredSenderChain? {
        try database.queryFirst("""
            SELECT epoch, signing_key, member_key, state_digest, chain, device_key FROM sender_chains
            WHERE group_row = ? AND epoch = ? AND signing_key = ?
            """, [groupRow, Int64(epoch), signingKey], Self.decodeChain)
    }

    /// Our own chain made for the state with `stateDigest`.
    public func ownChain(stateDigest: [UInt8], memberKey: [UInt8], groupRow: Int64) throws -> StoredSenderChain? {
        try database.queryFirst("""
            SELECT epoch, signing_key, member_key, state_digest, chain, device_key FROM sender_chains
            WHERE group_row = ? AND state_digest = ? AND member_key = ?
            """, [groupRow, stateDigest, memberKey], Self.decodeChain)
    }

    /// How many chains the group holds for an epoch (`hush group info`).
    public func chainCount(epoch: UInt32, groupRow: Int64) throws -> Int {
        try database.queryFirst("SELECT count(*) FROM sender_chains WHERE group_row = ? AND epoch = ?", [groupRow, Int64(epoch)]) {
            try $0.get(0, as: Int.self)
        } ?? 0
    }

    /// Members (identity keys) whose chain for `epoch` we hold.
    public func membersWithChains(epoch: UInt32, groupRow: Int64) throws -> [[UInt8]] {
        try database.query("SELECT DISTINCT member_key FROM sender_chains WHERE group_row = ? AND epoch = ?",
                           [groupRow, Int64(epoch)]) { try $0.get(0) }
    }

    static func decodeChain(_ row: Row) throws -> StoredSenderChain {
        StoredSenderChain(epoch: UInt32(clamping: try row.get(0, as: Int64.self)), signingKey: try row.get(1), memberKey: try row.get(2),
                          stateDigest: try row.get(3), chain: try row.get(4), deviceKey: try row.get(5))
    }

    // MARK: Pairwise deliveries

    /// Queues encoded content for a member, to be sealed on its pairwise
    /// session once there is one (the flush starts missing sessions).
    public func queueDelivery(_ content: [UInt8], to memberKey: [UInt8], groupRow: Int64, at time: Milliseconds) throws {
        try database.execute("INSERT INTO group_deliveries(group_row, member_key, content, created_at) VALUES (?, ?, ?, ?)",
                             [groupRow, memberKey, content, time])
    }

    public func pendingDeliveries() throws -> [(id: Int64, groupRow: Int64, memberKey: [UInt8], content: [UInt8])] {
        try database.query("SELECT id, group_row, member_key, content FROM group_deliveries ORDER BY id") { row in
            (try row.get(0), try row.get(1), try row.get(2), try row.get(3))
        }
    }

    public func removeDelivery(id: Int64) throws {
        try database.execute("DELETE FROM group_deliveries WHERE id = ?", [id])
    }

    // MARK: Fan-out recipients and receipts

    public func addRecipients(_ memberKeys: [[UInt8]], requestId: String) throws {
        for key in memberKeys {
            try database.execute("INSERT OR IGNORE INTO outbox_recipients(request_id, member_key) VALUES (?, ?)", [requestId, key])
        }
    }

    /// The requests whose row for the mailbox `memberKey` the relay has not taken yet.
    public func requestsAwaiting(memberKey: [UInt8]) throws -> [String] {
        try database.query("SELECT request_id FROM outbox_recipients WHERE member_key = ? AND deposited = 0", [memberKey]) { try $0.get(0) }
    }

    /// Moves a request's undeposited row for the mailbox `memberKey` to
    /// `replacement`, undeposited (the relay keeps a request id per mailbox,
    /// so a copy it already holds is answered with the same id, not stored
    /// twice). Without a replacement the row goes, and a request whose other
    /// rows were all deposited has one of them posted again, so that it
    /// completes. Returns false when the request is left with no row at all,
    /// for the caller to drop (with no row, a request would be taken for one
    /// to its conversation's contact). For a mailbox nothing may go to any
    /// more (a revoked device's, an account key retired, §20.14).
    public func readdress(requestId: String, memberKey: [UInt8], to replacement: [UInt8]?) throws -> Bool {
        try database.execute("DELETE FROM outbox_recipients WHERE request_id = ? AND member_key = ? AND deposited = 0", [requestId, memberKey])
        if let replacement {
            try database.execute("INSERT OR REPLACE INTO outbox_recipients(request_id, member_key, deposited) VALUES (?, ?, 0)",
                                 [requestId, replacement])
            return true
        }
        guard let rows = try undeliveredRecipients(requestId: requestId) else { return false }
        if rows.isEmpty {
            try database.execute("""
                UPDATE outbox_recipients SET deposited = 0 WHERE request_id = ?
                    AND member_key = (SELECT min(member_key) FROM outbox_recipients WHERE request_id = ?)
                """, [requestId, requestId])
        }
        return true
    }

    /// Members a fan-out request has not reached yet; nil when the request is not a fan-out.
    public func undeliveredRecipients(requestId: String) throws -> [[UInt8]]? {
        let rows: [([UInt8], Bool)] = try database.query(
            "SELECT member_key, deposited FROM outbox_recipients WHERE request_id = ?", [requestId]) { row in
            (try row.get(0), try row.get(1, as: Int64.self) != 0)
        }
        guard !rows.isEmpty else { return nil }
        return rows.filter { !$0.1 }.map(\.0)
    }

    public func markDeposited(requestId: String, memberKey: [UInt8]) throws {
        try database.execute("UPDATE outbox_recipients SET deposited = 1 WHERE request_id = ? AND member_key = ?", [requestId, memberKey])
    }

    /// Records that `memberKey` has a group message at `status` ('sent', 'delivered', 'read'); never moves back.
    /// Returns whether it changed.
    @discardableResult
    public func recordReceipt(messageId: Int64, memberKey: [UInt8], status: String) throws -> Bool {
        func rank(_ text: String) -> Int { MessageStatus(rawValue: text)?.receiptRank ?? 0 }
        let current: String? = try database.queryFirst("SELECT status FROM group_receipts WHERE message_id = ? AND member_key = ?",
                                                       [messageId, memberKey]) { try $0.get(0) }
        if let current, rank(current) >= rank(status) { return false }
        try database.execute("""
            INSERT OR REPLACE INTO group_receipts(message_id, member_key, status) VALUES (?, ?, ?)
            """, [messageId, memberKey, status])
        return true
    }

    /// Forgets what `memberKey` had not confirmed of our messages in
    /// `conversationId` that are not read by everyone yet (the member left
    /// the group: it reads nothing more). Returns those messages' ids.
    public func forgetUnreadReceipts(of memberKey: [UInt8], conversationId: Int64) throws -> [Int64] {
        let ids: [Int64] = try database.query("""
            SELECT message_id FROM group_receipts WHERE member_key = ? AND status <> 'read' AND message_id IN
                (SELECT id FROM messages WHERE conversation_id = ? AND direction = 'out' AND status IN ('pending', 'sent', 'delivered'))
            """, [memberKey, conversationId]) { try $0.get(0) }
        for id in ids {
            try database.execute("DELETE FROM group_receipts WHERE message_id = ? AND member_key = ?", [id, memberKey])
        }
        return ids
    }

    /// Per-member status of a group message.
    public func receipts(messageId: Int64) throws -> [(memberKey: [UInt8], status: String)] {
        try database.query("SELECT member_key, status FROM group_receipts WHERE message_id = ?", [messageId]) { row in
            (try row.get(0), try row.get(1))
        }
    }
}
