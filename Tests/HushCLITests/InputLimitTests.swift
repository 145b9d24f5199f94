import HushProtocol
import HushTerminal
import Testing

@Suite struct InputLimitTests {
    /// `hush chat` takes as long a line as a message may carry: no shorter (a long
    /// paste would be refused for no reason) and no longer (it could not be sent).
    @Test func theLineEditorsLimitIsTheProtocols() {
        #expect(LineEditor.maximumBytes == ContentLimits.maxTextLength)
    }
}
