import ArgumentParser
import Foundation
@testable import hush
import HushRelay
import Testing

/// `hush relay serve`'s flags over the relay's settings (HushRelay's
/// `RelaySettings`): flags over variables over the file.
@Suite struct RelayServeSettingsTests {
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
