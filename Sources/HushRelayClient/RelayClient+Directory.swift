import HushProtocol
import HushRelayAPI

/// Accounts' device directories (docs/PROTOCOL.md §20.9, docs/RELAY-API.md).
extension RelayClient {
    /// Publishes `list` in its account's directory, sealed and signed by
    /// `writer` (the account's blinded key). Returns what the relay did; a
    /// relay holding a higher counter answers 409.
    public func publishDirectory(_ list: DeviceList, writer: DeviceDirectory.Writer) async throws(RelayClientError) -> DirectoryWriteResponse {
        let record: [UInt8]
        do { record = try writer.directory.seal(list) } catch { throw .invalidResponse("the list cannot be sealed: \(error)") }
        let body = DirectoryWriteRequest(record: record, counter: list.counter, signature: writer.signPut(counter: list.counter, record: record))
        // Repeatable: the same record again only renews it.
        return try await call(.PUT, RelayPaths.directory(writer.directory.name.rawRepresentation), body: body, repeatable: true,
                              as: DirectoryWriteResponse.self)
    }

    /// The list in `account`'s directory, opened and checked as §20.9 says
    /// (§20.3 steps 1–8; whether it may replace a list held is the caller's
    /// `DeviceListVerifier`); nil when the relay holds none.
    public func fetchDirectory(of account: IdentityKey) async throws(RelayClientError) -> DeviceList? {
        let directory: DeviceDirectory
        do { directory = try DeviceDirectory(account: account) } catch { throw .invalidResponse("not an account key: \(error)") }
        let dto: DirectoryDTO
        do {
            dto = try await call(.GET, RelayPaths.directory(directory.name.rawRepresentation), as: DirectoryDTO.self)
        } catch let error where error.status == 404 {
            return nil
        }
        do {
            return try directory.open(dto.record.bytes, counter: dto.counter)
        } catch {
            throw .invalidResponse("\(error)")
        }
    }
}
