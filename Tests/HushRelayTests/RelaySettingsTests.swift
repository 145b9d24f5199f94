import Foundation
@testable import HushRelay
import Testing

/// The relay's settings: defaults, the YAML file, `HUSH_RELAY_*` variables
/// and flags in that order, and every way a value is refused.
@Suite struct RelaySettingsTests {
    private func read(_ yaml: String) throws(RelaySettingsError) -> RelaySettings {
        var settings = RelaySettings()
        try RelaySettingsFile.apply(yaml: yaml, file: "relay.yaml", to: &settings)
        return settings
    }

    @Test func printedDefaultsReadBackAsTheDefaultsAndListEverySetting() throws {
        let text = RelaySettingsFile.render(RelaySettings())
        for setting in RelaySetting.all {
            #expect(text.contains("\(setting.key.split(separator: ".").last!): "), "\(setting.key) is not printed")
        }
        let read = try read(text)
        #expect(RelaySettingsFile.render(read) == text)
        #expect(Set(RelaySetting.all.map(\.environmentName)).count == RelaySetting.all.count)
    }

    @Test func fileValuesLand() throws {
        let settings = try read("""
            port: 9090
            origins: ["https://relay.example.org"]
            log-level: warning
            connections:
              idle-timeout: 12
            rate-limits:
              auth-per-address-burst: 100
              first-contact-per-address-per-second: 0.5
            """)
        #expect(settings.configuration.port == 9090)
        #expect(settings.configuration.origins.map(\.description) == ["https://relay.example.org:443"])
        #expect(settings.logLevel == "warning")
        #expect(settings.configuration.connectionLimits.idleTimeoutSeconds == 12)
        #expect(settings.configuration.rateLimits.authPerAddress.burst == 100)
        #expect(settings.configuration.rateLimits.firstContactPerAddress.perSecond == 0.5)
        #expect(settings.configuration.rateLimits.perAddress.burst == RelayConfiguration().rateLimits.perAddress.burst)
    }

    @Test(arguments: [
        ("port: 80\nconections:\n  max: 5\n", "unknown setting 'conections' (relay.yaml line 2)"),
        ("connections:\n  idel-timeout: 5\n", "unknown setting 'connections.idel-timeout' (relay.yaml line 2)"),
        ("port: eighty\n", "setting 'port' (relay.yaml line 1) must be a whole number 0…65535"),
        ("port: 8.5\n", "setting 'port' (relay.yaml line 1) must be a whole number"),
        ("connections: 5\n", "setting 'connections' (relay.yaml line 1) must be a section of settings"),
        ("connections:\n  max: 0\n", "setting 'connections.max' (relay.yaml line 2): 0 is not within 1…1000000"),
        ("log-level: loud\n", "setting 'log-level' (relay.yaml line 1): must be one of"),
        ("origins: [\"ftp://relay\"]\n", "setting 'origins' (relay.yaml line 1): ftp://relay"),
        ("rate-limits:\n  per-address-per-second: -1\n", "setting 'rate-limits.per-address-per-second' (relay.yaml line 2)"),
        ("database: mysql://x\n", "setting 'database' (relay.yaml line 1): must start with postgres://"),
        ("port: [1\n", "relay.yaml is not valid YAML"),
        ("- port\n", "relay.yaml must be a mapping"),
    ])
    func badFilesAreRefusedNamingTheKey(yaml: String, message: String) {
        #expect {
            try read(yaml)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}
