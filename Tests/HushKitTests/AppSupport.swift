import Foundation
import HushKit
import Testing

/// What the app's tests share: accounts in fresh directories, and waiting for events.
enum App {
    static let passphrase = "a passphrase for the app's tests"
    /// The cheap Argon2id level, so that the tests spend their time on messaging.
    static let keys = KeyProvider.passphrase(passphrase, cost: .interactive)

    /// A new account registered with `relay`.
    static func account(_ label: String, relay: RelayProcess?) async throws -> HushAccount {
        let directory = try RelayProcess.temporaryDirectory(label).appendingPathComponent("home").path
        let account = try await HushAccount.create(in: directory, keys: keys, displayName: label, relayURL: relay?.url)
        if relay != nil { try await account.register() }
        return account
    }

    /// `first` and `second` as each other's contacts; returns (first's contact for second, second's for first).
    static func introduce(_ first: HushAccount, _ second: HushAccount, as names: (String, String)) async throws -> (ContactID, ContactID) {
        let forSecond = try await first.addContact(name: names.1, address: second.address)
        let forFirst = try await second.addContact(name: names.0, address: first.address)
        return (forSecond.id, forFirst.id)
    }

    /// The first event of `events` that `matches`, waiting at most `seconds`
    /// (a bound for a loaded machine, not a timing assertion).
    static func event(in events: AsyncStream<HushEvent>, within seconds: Double = 60,
                      _ matches: @escaping @Sendable (HushEvent) -> Bool) async -> HushEvent? {
        await withTaskGroup(of: HushEvent?.self) { group in
            group.addTask {
                for await event in events where matches(event) { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Whether `events` ends (yields nothing more) within `seconds`: a bound, so
    /// that a stream that never ends fails the test instead of hanging it.
    static func ends(_ events: AsyncStream<HushEvent>, within seconds: Double = 30) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in events {}
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Syncs `account` until `condition` holds (messages may take more than one
    /// round: a first contact's key hand-over, group keys), at most `rounds` times.
    static func sync(_ account: HushAccount, rounds: Int = 10, until condition: () async throws -> Bool) async throws -> Bool {
        for _ in 0..<rounds {
            _ = try await account.sync()
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// The kind of the HushError `body` throws (nil when it throws none).
    static func errorKind(_ body: () async throws -> Void) async -> HushError.Kind? {
        do {
            try await body()
            return nil
        } catch let error as HushError {
            return error.kind
        } catch {
            Issue.record("not a HushError: \(error)")
            return nil
        }
    }

    /// The HushError `body` throws (nil when it throws none).
    static func error(_ body: () async throws -> Void) async -> HushError? {
        do {
            try await body()
            return nil
        } catch let error as HushError {
            return error
        } catch {
            Issue.record("not a HushError: \(error)")
            return nil
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
