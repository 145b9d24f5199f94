import ArgumentParser
import HushRelayAPI

/// The one check for a relay URL the user types (`init --relay`,
/// `register --relay`): http:// or https://, a host, a port in range, and a
/// well-formed `#pin=` when there is one. Checked before anything is created
/// or sent, so a typo is a usage error (exit 64) naming what is wrong, not a
/// refused request after the identity already exists.
enum RelayURLRule {
    static func check(_ url: String) throws {
        do {
            let (base, _) = try RelayKeyPin.split(url)
            _ = try RelayOrigin(url: base)
        } catch {
            throw ValidationError("--relay \(url): \(error.description); use http://HOST:PORT (this machine) or https://HOST[:PORT][#pin=PIN]")
        }
    }
}
