import ArgumentParser
import Foundation
import HushRelay

/// `hush relay config`: write a configuration file with every setting and
/// its default, or check one without starting the relay.
struct RelayConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print the relay's configuration file with every default, or check a file.",
        discussion: """
        hush relay config --print-defaults > relay.yaml
        hush relay config --check relay.yaml
        hush relay serve --config relay.yaml

        --check reads the HUSH_RELAY_<KEY> variables over the file, as `hush relay serve` does.
        """)

    @Flag(help: "Write a commented YAML file with every setting and its default to standard output.") var printDefaults = false
    @Option(help: ArgumentHelp("Check FILE as `hush relay serve --config FILE` would, without starting the relay.", valueName: "FILE"))
    var check: String?

    func validate() throws {
        guard printDefaults != (check != nil) else { throw ValidationError("give --print-defaults or --check FILE") }
    }

    func run() throws {
        if printDefaults {
            FileHandle.standardOutput.write(Data(RelaySettingsFile.render(RelaySettings()).utf8))
            return
        }
        // As `relay serve --config FILE` reads it: the file, then the HUSH_RELAY_* variables over it.
        var settings = RelaySettings()
        let environment = ProcessInfo.processInfo.environment
        do {
            try RelaySettingsFile.apply(contentsOf: check!, to: &settings)
            try settings.applyEnvironment(environment)
        } catch {
            throw ValidationError("\(error)")
        }
        try settings.requireCoherent()
        let variables = RelaySetting.all.map(\.environmentName).filter { environment[$0] != nil }
        print("\(check!)\(variables.isEmpty ? "" : " with " + variables.joined(separator: ", ")): every setting is valid")
    }
}
