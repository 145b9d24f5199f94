/// A resumable blob upload (`POST /v1/blobs/uploads`, `GET` and `PATCH
/// /v1/blobs/uploads/{id}`): how long the blob will be and how many of its
/// bytes the relay holds. The upload id becomes the blob's id once complete.
public struct BlobUploadStatus: Codable, Sendable, Equatable {
    public var uploadID: String
    public var length: Int
    public var received: Int

    public init(uploadID: String, length: Int, received: Int) {
        self.uploadID = uploadID
        self.length = length
        self.received = received
    }
}

/// Headers of resumable uploads.
public enum BlobUploadHeaders {
    /// On `POST /v1/blobs/uploads`: the whole blob's length in bytes.
    public static let length = "Hush-Blob-Length"
    /// On `PATCH /v1/blobs/uploads/{id}`: where the body's bytes start; must equal `received`.
    public static let offset = "Hush-Upload-Offset"
}
