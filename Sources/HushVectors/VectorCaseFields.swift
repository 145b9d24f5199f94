import Foundation
import HushCrypto

/// Typed access to the fields of one case object, with failures that name
/// the missing or malformed field (vector values are public test data).
extension Dictionary where Key == String, Value == Any {
    func string(_ field: String) throws -> String {
        guard let value = self[field] as? String else {
            throw VectorFailure("field \"\(field)\" is missing or not a string")
        }
        return value
    }

    func hex(_ field: String) throws -> [UInt8] {
        let text = try string(field)
        do {
            return try Hex.decode(text)
        } catch {
            throw VectorFailure("field \"\(field)\" is not hexadecimal")
        }
    }

    func optionalHex(_ field: String) throws -> [UInt8]? {
        self[field] == nil ? nil : try hex(field)
    }

    func int(_ field: String) throws -> Int {
        if let value = self[field] as? Int { return value }
        if let number = self[field] as? NSNumber { return number.intValue }
        throw VectorFailure("field \"\(field)\" is missing or not an integer")
    }

    func optionalInt(_ field: String) throws -> Int? {
        self[field] == nil ? nil : try int(field)
    }

    func bool(_ field: String) -> Bool {
        if let value = self[field] as? Bool { return value }
        return (self[field] as? NSNumber)?.boolValue ?? false
    }

    /// Hush's own cases say `"result": "invalid"` when the operation must be
    /// refused; anything else (or no field) means it must succeed.
    var expectsRejection: Bool { (self["result"] as? String) == "invalid" }
}

/// Shared checks for the suites.
enum Check {
    static func equal(_ actual: [UInt8], _ expected: [UInt8], _ what: String) throws {
        guard actual == expected else {
            throw VectorFailure("\(what): expected \(Hex.encode(expected)), got \(Hex.encode(actual))")
        }
    }

    /// Runs `operation`, which must throw `expected` (a case marked invalid).
    static func rejects(_ expected: CryptoError, _ what: String, _ operation: () throws -> Void) throws {
        do {
            try operation()
        } catch let error as CryptoError where error == expected {
            return
        } catch let error as VectorFailure {
            throw error
        } catch {
            throw VectorFailure("\(what) was refused, but with \"\(error)\" instead of \"\(expected)\"")
        }
        throw VectorFailure("\(what) was accepted; this case must be refused")
    }
}
