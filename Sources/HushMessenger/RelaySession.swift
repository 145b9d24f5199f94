import HushCrypto
import HushStore

/// Our logged-in session at the relay, and the only home of the 401 rule:
/// a call the relay answers with 401 is retried once after logging in again,
/// and a second 401 in the same run is final.
///
/// Deposits, bundle fetches and registration carry no session token (they
/// must not tell the relay who posts or looks up what), so they do not come
/// through here, and a 401 on them is not something logging in could fix.
final class RelaySession {
    private let dependencies: MessengerDependencies
    private var authenticated = false
    /// Whether this run re-authenticated already after a 401 (the rule: once).
    private var reauthenticated = false

    /// A kept token closer than this to its expiry is not resumed.
    static let tokenRenewalMarginMilliseconds: Int64 = 60_000

    init(_ dependencies: MessengerDependencies) {
        self.dependencies = dependencies
    }

    /// Runs a relay call that needs our session, re-authenticating once when
    /// the relay answers 401. Its failure comes back as a `MessengerError`.
    func call<T: Sendable>(isolation: isolated (any Actor)? = #isolation,
                           _ call: () async throws(DeliveryFailure) -> T) async throws(MessengerError) -> T {
        do { return try await withReauthentication(call) } catch { throw .relay(error) }
    }

    /// `call`, with the failure as the relay reported it.
    func withReauthentication<T: Sendable>(isolation: isolated (any Actor)? = #isolation,
                                           _ call: () async throws(DeliveryFailure) -> T) async throws(DeliveryFailure) -> T {
        try await ensureAuthenticated()
        do {
            return try await call()
        } catch .unauthorized {
            guard !reauthenticated else { throw .unauthorized }
            reauthenticated = true
            authenticated = false
            try await ensureAuthenticated()
            return try await call()
        }
    }

    /// Authenticates once per run (and again after a 401, once). The token is
    /// kept in the (encrypted) store until shortly before it expires, so a
    /// script that runs `hush sync` often does not log in every time (the
    /// relay rate-limits logins per address). After a 401 the kept token is
    /// not tried again.
    private func ensureAuthenticated(isolation: isolated (any Actor)? = #isolation) async throws(DeliveryFailure) {
        guard !authenticated else { return }
        let transport = dependencies.transport, identity = dependencies.transportIdentity
        if !reauthenticated, let kept = keptSessionToken(),
           kept.expiresAt > dependencies.clock.now() + Self.tokenRenewalMarginMilliseconds {
            transport.resume(kept, identity: identity)
            authenticated = true
            return
        }
        try await transport.authenticate(identity: identity)
        authenticated = true
        if let token = transport.sessionToken {
            try? dependencies.store.settings.set(SettingsRepository.Name.sessionToken, to: "\(token.expiresAt) \(token.token)")
        }
    }

    private func keptSessionToken() -> SessionToken? {
        guard let value = try? dependencies.store.settings.value(SettingsRepository.Name.sessionToken),
              let space = value.firstIndex(of: " "), let expiresAt = Int64(value[..<space]) else { return nil }
        return SessionToken(token: String(value[value.index(after: space)...]), expiresAt: expiresAt)
    }
}
