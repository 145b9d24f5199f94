import HushRelayAPI

/// The relay's blob store: encrypted files, uploaded in resumable parts and
/// downloaded from any offset. Not every transport has one (see `RelayTransport`).
public protocol BlobTransfer: Sendable {
    /// Starts a resumable upload of a `length`-byte blob with our session; returns its id.
    func startBlobUpload(length: Int64) async throws(DeliveryFailure) -> String
    /// Sends the next part of upload `id` from the encrypted blob in the file
    /// at `path`: from the first byte the relay lacks, at most `segmentBytes`.
    /// `progress` hears the file position reached. With `growing`, the file
    /// is still being written: the upload waits for its bytes and reads no
    /// further than they are written, from the writer's memory where it can.
    func continueBlobUpload(id: String, file path: String, length: Int64, segmentBytes: Int64,
                            growing: GrowingUploadFile?,
                            progress: @escaping @Sendable (Int64) -> Void) async throws(DeliveryFailure) -> BlobUploadStep
    /// Streams blob `id` from byte `offset` on (at most `maxBytes` in all) to
    /// `sink`. A failure of the relay is a `DeliveryFailure`; anything else is what `sink` threw.
    func downloadBlob(id: String, from offset: Int64, maxBytes: Int64, into sink: any BlobSink) async throws
}

/// Where an upload stands after one part: how many bytes the relay holds,
/// and the blob's id once it holds them all.
public struct BlobUploadStep: Sendable, Equatable {
    public let received: Int64
    public let blobID: String?

    public init(received: Int64, blobID: String?) {
        self.received = received
        self.blobID = blobID
    }
}

/// Where a downloaded blob's bytes go, in order. One download uses it at a time.
public protocol BlobSink: AnyObject, Sendable {
    func write(_ bytes: [UInt8]) throws
    /// The same, with the bytes lent in place (the transport's own buffer,
    /// valid only during the call): no array per piece.
    func write(contentsOf bytes: UnsafeRawBufferPointer) throws
}

extension BlobSink {
    public func write(contentsOf bytes: UnsafeRawBufferPointer) throws { try write(Array(bytes)) }
}
