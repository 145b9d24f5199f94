import ArgumentParser
import Foundation
@testable import hush
import HushRelay
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

    /// Runs `body` with a `relay.yaml` holding `yaml` in a directory of its own, removed afterwards.
    private func withConfigFile(_ yaml: String, _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-settings-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("relay.yaml").path
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        try body(file)
    }

    @Test func variablesOverrideTheFileAndFlagsOverrideBoth() throws {
        try withConfigFile("port: 9000\nretention-days: 7\nconnections:\n  max: 100\n  idle-timeout: 20\n") { file in
            let environment = ["HUSH_RELAY_PORT": "9001", "HUSH_RELAY_CONNECTIONS_IDLE_TIMEOUT": "21"]
            let command = try RelayServeCommand.parse(["--config", file, "--port", "9002"])
            let settings = try command.resolvedSettings(environment: environment)
            #expect(settings.configuration.port == 9002)                                  // flag over variable over file
            #expect(settings.configuration.connectionLimits.idleTimeoutSeconds == 21)     // variable over file
            #expect(settings.configuration.connectionLimits.maxConnections == 100)        // file over default
            #expect(settings.configuration.retentionSeconds == 7 * 86_400)
            #expect(settings.configuration.host == "127.0.0.1")                           // default
            #expect(throws: ValidationError.self) { try command.resolvedSettings(environment: ["HUSH_RELAY_CONNECTIONS_MAX": "many"]) }
            // parse() runs validate(), which resolves the settings: the relay never starts.
            #expect { try RelayServeCommand.parse(["--config", file, "--port", "70000"]) } throws: { "\($0)".contains("setting 'port' (--port): 70000") }
        }
    }

    /// Lists follow the same rule as every other setting: a later source
    /// replaces the value, it does not add to it (docs/OPERATIONS.md says so).
    @Test func originFlagsReplaceTheFilesListOfOrigins() throws {
        try withConfigFile("origins: [\"https://a.example.org\", \"https://b.example.org\"]\n") { file in
            let fromFile = try RelayServeCommand.parse(["--config", file]).resolvedSettings(environment: [:])
            #expect(fromFile.configuration.origins.map(\.description) == ["https://a.example.org:443", "https://b.example.org:443"])
            let fromVariable = try RelayServeCommand.parse(["--config", file]).resolvedSettings(environment: ["HUSH_RELAY_ORIGINS": "https://c.example.org"])
            #expect(fromVariable.configuration.origins.map(\.description) == ["https://c.example.org:443"])
            let fromFlags = try RelayServeCommand.parse(["--config", file, "--origin", "https://d.example.org", "--origin", "https://e.example.org:8443"])
                .resolvedSettings(environment: ["HUSH_RELAY_ORIGINS": "https://c.example.org"])
            #expect(fromFlags.configuration.origins.map(\.description) == ["https://d.example.org:443", "https://e.example.org:8443"])
        }
    }
}
