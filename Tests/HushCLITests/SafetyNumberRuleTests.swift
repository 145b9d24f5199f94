import Testing
@testable import hush

/// `hush verify --compare`: what is not a safety number is a usage error,
/// never "the safety numbers do NOT match", which tells the user someone may
/// be in the middle. Before, dashes between the groups, an empty string or
/// words all raised that alarm.
@Suite struct SafetyNumberRuleTests {
    @Test func sixtyDigitsWithSpacesOrDashesPass() throws {
        let groups = (0..<12).map { String(format: "%05d", $0 * 7_919 % 100_000) }
        try SafetyNumberRule.check(groups.joined(separator: " "))
        try SafetyNumberRule.check(groups.joined(separator: "-"))
        try SafetyNumberRule.check("0a1b2c3d4e5f")   // a scanned code's hex content
    }

    @Test(arguments: ["", "   ", "hello world", "12345 6789x", "28407-49477"])
    func whatIsNotASafetyNumberIsAUsageError(_ code: String) {
        #expect {
            try SafetyNumberRule.check(code)
        } throws: { error in
            (error as? CommandError)?.status == .usage
        }
    }
}
