import ArgumentParser
import Foundation
import Glibc
import HushRelay

extension RelaySettings {
    /// What no single setting says but `hush relay serve` cannot run with:
    /// checked by `serve` before it starts and by `relay config --check`, so
    /// that the check refuses what serving would (a walkthrough: `--check`
    /// passed a file whose relay then refused to start, or died binding its
    /// metrics to the relay's own port).
    func requireCoherent() throws {
        if tlsCertificate.isEmpty != tlsKey.isEmpty {
            throw ValidationError("TLS needs both a certificate and a key (--tls-certificate and --tls-key, or tls.certificate and tls.key)")
        }
        if tlsSelfSigned && !tlsCertificate.isEmpty {
            throw ValidationError("choose --tls-self-signed or a certificate and key, not both")
        }
        for (what, path) in [("certificate", tlsCertificate), ("key", tlsKey)] where !path.isEmpty && access(path, R_OK) != 0 {
            throw ValidationError("the TLS \(what) \(path) cannot be read (\(String(cString: strerror(errno)))): give the path of a PEM file the relay's user can read")
        }
        let host = configuration.host
        if configuration.origins.isEmpty, ["0.0.0.0", "::", "[::]"].contains(host) {
            throw ValidationError("host \(host) listens on every address, so the relay cannot tell which URL clients use to log in: add --origin http://NAME:PORT (or the https:// URL of your proxy)")
        }
        if !metricsListen.isEmpty {
            guard let metrics = RelaySettings.hostAndPort(metricsListen) else {
                throw ValidationError("metrics.listen \(metricsListen) is not HOST:PORT")
            }
            // The same port on another address is fine; on the same one, or where either listens on every address, it clashes.
            let everywhere: Set<String> = ["0.0.0.0", "::", "[::]"]
            let sameAddress = metrics.host == configuration.host || everywhere.contains(metrics.host) || everywhere.contains(configuration.host)
            if metrics.port != 0, metrics.port == configuration.port, sameAddress {
                throw ValidationError("metrics.listen \(metricsListen) takes the relay's own port \(configuration.port): give the metrics another port")
            }
        }
    }
}
