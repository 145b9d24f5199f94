import HushRelayPostgres
import Testing

@Suite struct PostgresURLTests {
    /// The password reaches PostgreSQL only: not a description, not a dump.
    @Test func thePasswordNeverPrints() throws {
        let url = try PostgresURL("postgres://hush:s3cret-canary@db.example:5433/relay?sslmode=require")
        #expect(url.password == "s3cret-canary" && url.port == 5433 && url.database == "relay")
        var dumped = ""
        dump(url, to: &dumped)
        for text in [url.description, String(reflecting: url), "\(url)", dumped] {
            #expect(!text.contains("s3cret-canary"), "\(text)")
        }
    }

    @Test func unusableURLsSayWhy() {
        for text in ["mysql://u@h/d", "postgres://h/d", "postgres://u@h/", "postgres://u@h:0/d", "postgres://u@h/d?sslmode=maybe"] {
            #expect(throws: PostgresURLError.self, "\(text)") { try PostgresURL(text) }
        }
        // A port that is not a number makes the whole URL unparsable: said as such (it said "must start with postgres://").
        #expect { try PostgresURL("postgres://u@127.0.0.1:abc/d") } throws: { error in
            "\(error)".contains("is the port a number?") && !"\(error)".contains("must start with")
        }
    }
}
