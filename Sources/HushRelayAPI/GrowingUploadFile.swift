/// The file of an upload while it is still being written (a blob sent as it
/// is sealed): `RelayClient.continueBlobUpload` reads no further than it is
/// written, and takes the bytes just written from memory when the writer
/// still holds them, rather than reading them back from the disk.
public struct GrowingUploadFile: Sendable {
    /// Waits until the file holds bytes past the position given; returns
    /// how far it is written. Throws when it will never grow that far.
    public let available: @Sendable (Int64) async throws -> Int64
    /// Copies bytes from the position given into the buffer, from memory;
    /// returns how many (0: not held there, read them from the file).
    public let copyHeld: @Sendable (Int64, UnsafeMutableRawBufferPointer) -> Int

    public init(available: @escaping @Sendable (Int64) async throws -> Int64,
                copyHeld: @escaping @Sendable (Int64, UnsafeMutableRawBufferPointer) -> Int) {
        self.available = available
        self.copyHeld = copyHeld
    }
}
