import ArgumentParser
import Foundation

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
        var settings = RelaySettings()
        do { try RelaySettingsFile.apply(contentsOf: check!, to: &settings) } catch { throw ValidationError("\(error)") }
        print("\(check!): every setting is valid")
    }
}
