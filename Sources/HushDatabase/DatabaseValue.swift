/// A value SQLite stores: the five storage classes.
public enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift type that converts to and from a `DatabaseValue`.
public protocol DatabaseValueConvertible {
    var databaseValue: DatabaseValue { get }
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { self }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Int64: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        if case let .integer(v) = value { return v }
        return nil
    }
}

extension Int: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        if case let .integer(v) = value { return Int(exactly: v) }
        return nil
    }
}

extension Bool: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        if case let .integer(v) = value { return v != 0 }
        return nil
    }
}

extension Double: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .real(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case let .real(v): return v
        case let .integer(v): return Double(v)
        default: return nil
        }
    }
}

extension String: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { .text(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        if case let .text(v) = value { return v }
        return nil
    }
}

extension Array: DatabaseValueConvertible where Element == UInt8 {
    @inlinable public var databaseValue: DatabaseValue { .blob(self) }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> [UInt8]? {
        switch value {
        case let .blob(v): return v
        case .null: return nil
        default: return nil
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    @inlinable public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    @inlinable public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}
