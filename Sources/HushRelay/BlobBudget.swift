import HushCrypto
import HushRelayAPI
import Synchronization

/// How many blob bytes the relay takes, checked when an upload starts (a
/// one-shot `POST /v1/blobs` or a resumable upload's `POST /v1/blobs/uploads`)
/// against three budgets (docs/RELAY-API.md, "Blob budgets"):
///
/// - the uploader's quota (`BlobQuota`): its stored blobs, the declared
///   lengths of its open resumable uploads and its one-shot uploads being
///   received, so that a one-shot upload cannot take room an open upload holds;
/// - the relay's total (`totalBytes`): every stored blob, every open upload's
///   declared length and every one-shot upload being received, so that many
///   fresh identities together cannot fill the disk;
/// - the source address's token bucket of bytes (`perAddress`): 429 with the
///   wait when one address uploads faster than the bucket refills, however
///   many identities it registers.
///
/// An identity's quota is checked again, atomically, when the blob is
/// recorded (the storage driver); the total and the address are checked only
/// here. Several instances sharing a blob directory see each other's open
/// uploads (they are files) but not each other's one-shot uploads in flight.
final class BlobBudget: Sendable {
    let quota: BlobQuota
    let totalBytes: Int
    private let perAddress: RateLimiter
    /// One-shot uploads this process is receiving, by blob id.
    private let receiving = Mutex<[String: Reservation]>([:])

    /// What a one-shot upload holds while its body arrives.
    struct Reservation: Sendable {
        let id: String
        let uploader: [UInt8]
        let address: String
        let bytes: Int
    }

    /// The unexpired blobs the storage holds: the uploader's and everyone's.
    struct Stored: Sendable {
        let uploader: BlobUsage
        let total: BlobUsage
    }

    init(quota: BlobQuota, totalBytes: Int, perAddress: RateLimiter.Rule) {
        self.quota = quota
        self.totalBytes = totalBytes
        self.perAddress = RateLimiter(rule: perAddress)
    }

    /// Reserves `bytes` for the one-shot upload `id`, or throws the budget it
    /// would break (413 for a quota, 429 for the address). Release it with
    /// `finish` however the upload ends.
    func reserveOneShot(id: String, bytes: Int, uploader: [UInt8], address: String, stored: Stored, blobs: BlobStore,
                        now: Int64) throws -> Reservation {
        try receiving.withLock { table in
            try check(bytes, uploader: uploader, stored: stored, open: blobs.resumables(), receiving: Array(table.values))
            try charge(address, bytes, now: now)
            let reservation = Reservation(id: id, uploader: uploader, address: address, bytes: bytes)
            table[id] = reservation
            return reservation
        }
    }

    /// Ends a one-shot upload's reservation; the bytes it did not use
    /// (`used`, 0 when it failed) go back to the address's bucket.
    func finish(_ reservation: Reservation, used: Int, now: Int64) {
        receiving.withLock { _ = $0.removeValue(forKey: reservation.id) }
        perAddress.refund(reservation.address, cost: reservation.bytes - used, nowMilliseconds: now)
    }

    /// Starts the resumable upload `id` of `length` bytes if every budget has
    /// room for its declared length (which it then holds until it completes
    /// or is swept as abandoned).
    func startResumable(id: String, length: Int, uploader: [UInt8], address: String, stored: Stored, blobs: BlobStore, now: Int64) throws {
        try receiving.withLock { table in
            try blobs.createResumable(id: id, uploader: uploader, length: length) { open in
                try check(length, uploader: uploader, stored: stored, open: open, receiving: Array(table.values))
                try charge(address, length, now: now)
            }
        }
    }

    private func check(_ bytes: Int, uploader: [UInt8], stored: Stored, open: [RelayInventory.UploadInProgress],
                       receiving: [Reservation]) throws {
        let openOwn = open.filter { ConstantTime.equals($0.uploader, uploader) }
        let receivingOwn = receiving.filter { ConstantTime.equals($0.uploader, uploader) }
        try quota.check(adding: bytes, to: BlobUsage(
            count: stored.uploader.count + openOwn.count + receivingOwn.count,
            bytes: stored.uploader.bytes + openOwn.reduce(0) { $0 + $1.length } + receivingOwn.reduce(0) { $0 + $1.bytes }))
        let taken = stored.total.bytes + open.reduce(0) { $0 + $1.length } + receiving.reduce(0) { $0 + $1.bytes }
        guard bytes <= totalBytes - taken else { throw RelayError.blobStorageFull(totalMiB: totalBytes >> 20) }
    }

    private func charge(_ address: String, _ bytes: Int, now: Int64) throws {
        if let wait = perAddress.acquire(address, cost: bytes, nowMilliseconds: now) {
            throw RelayError.blobBytesRateLimited(retryAfterSeconds: wait)
        }
    }
}
