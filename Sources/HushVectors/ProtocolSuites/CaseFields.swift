import HushCrypto

/// Typed access to one vector case's JSON fields; a missing or ill-typed
/// field fails the case with its name.
public struct CaseFields {
    public let values: [String: Any]
    public init(_ values: [String: Any]) { self.values = values }

    public func string(_ key: String) throws -> String {
        guard let value = values[key] as? String else { throw VectorFailure("field '\(key)' missing or not a string") }
        return value
    }

    public func hex(_ key: String) throws -> [UInt8] {
        do { return try Hex.decode(try string(key)) } catch let failure as VectorFailure { throw failure } catch {
            throw VectorFailure("field '\(key)' is not hexadecimal")
        }
    }

    public func optionalHex(_ key: String) throws -> [UInt8]? {
        // Absent keys mean "none": the generator never writes null.
        if values[key] == nil { return nil }
        return try hex(key)
    }

    public func int(_ key: String) throws -> Int {
        guard let value = values[key] as? Int else { throw VectorFailure("field '\(key)' missing or not an integer") }
        return value
    }

    /// An integer field that must fit 32 bits unsigned (versions, prekey ids):
    /// a file that says otherwise fails its case instead of trapping.
    public func uint32(_ key: String) throws -> UInt32 {
        guard let value = UInt32(exactly: try int(key)) else { throw VectorFailure("field '\(key)' is not a 32-bit unsigned integer") }
        return value
    }

    public func optionalInt(_ key: String) -> Int? { values[key] as? Int }

    public func list(_ key: String) throws -> [[String: Any]] {
        guard let value = values[key] as? [[String: Any]] else { throw VectorFailure("field '\(key)' missing or not a list of objects") }
        return value
    }
}

/// Fails with both values when they differ.
public func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: String) throws {
    guard actual == expected else { throw VectorFailure("\(what): expected \(expected), got \(actual)") }
}

public func expectHex(_ actual: [UInt8], _ expected: [UInt8], _ what: String) throws {
    guard actual == expected else { throw VectorFailure("\(what): expected \(Hex.encode(expected)), got \(Hex.encode(actual))") }
}
