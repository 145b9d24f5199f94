import HushProtocol
import HushStore

extension StoredAttachment {
    /// How history shows an attachment message.
    static func summary(fileName: String, size: Int64) -> String {
        "[attachment \(fileName.isEmpty ? "unnamed" : fileName), \(size) bytes]"
    }

    /// The blob's length (what `transferred` counts towards): the file with its chunks' overhead and padding.
    public var blobLength: Int64 { Int64(AttachmentBlob.blobLength(plaintextSize: UInt64(max(size, 0)))) }

    /// The pointer this attachment travels as, once the relay holds its blob.
    func pointer() throws -> AttachmentPointer? {
        guard let blobId else { return nil }
        return try AttachmentPointer(key: key, digest: digest, size: UInt64(size), blobID: Array(blobId.utf8), fileName: fileName,
                                     mediaType: mediaType)
    }
}
