import ArgumentParser
import Testing
import WebAuthFastPath

@testable import WebAuthCLI

@Suite("Sign-in options: one check for the fast path and the full parser")
struct SignInOptionCheckTests {
    /// Whether the full program's parser takes `options` (`LoginOptions.validate` runs as it
    /// parses).
    private func fullParserTakes(_ options: [String]) -> Bool {
        (try? LoginOptions.parse(options)) != nil
    }

    /// Whether the fast path takes `options` on a helper's command line.
    private func fastPathTakes(_ options: [String]) -> Bool {
        FastPathCommand(arguments: ["exec-credential"] + options) != nil
            && FastPathCommand(arguments: ["git-credential"] + options + ["get"]) != nil
    }

    @Test(
        "An issuer or a redirect URI with a character URIs do not allow is refused by both",
        arguments: [
            ["--issuer", "https://a b", "--client-id", "c"], ["--issuer", "https://a|b", "--client-id", "c"],
            ["--issuer", "https://a.example/x y", "--client-id", "c"],
            ["--issuer", "https://a.example/\"q\"", "--client-id", "c"],
            ["--issuer", "https://a.example/%zz", "--client-id", "c"],
            ["--issuer", "https://a.example/\u{1B}[2J", "--client-id", "c"],
            ["--issuer", "https://ex\u{E4}mple.com", "--client-id", "c"],
            ["--redirect-uri", "http://127.0.0.1/a b"], ["--redirect-uri", "http://127.0.0.1/a|b"],
            ["--redirect-uri", "com.example:/cb<x>"],
        ])
    func refusedByBoth(options: [String]) {
        #expect(!fastPathTakes(options))
        #expect(!fullParserTakes(options))
        let value = options[1]
        #expect(
            !(options[0] == "--issuer" ? SignInOptionSyntax.isIssuer(value) : SignInOptionSyntax.isRedirectURI(value)))
    }

    @Test(
        "Issuers and redirect URIs both take",
        arguments: [
            ["--issuer", "https://id.example.com", "--client-id", "c"],
            ["--issuer", "https://id.example.com:8443/realms/a%20b/", "--client-id", "c"],
            ["--issuer", "http://127.0.0.1:9000/o/tenant_1~x", "--client-id", "c"],
            ["--redirect-uri", "http://127.0.0.1:8400/cb"], ["--redirect-uri", "com.example.app:/oauth2redirect"],
            ["--redirect-uri", "https://app.example/cb?x=1&y=(2)"],
        ])
    func takenByBoth(options: [String]) {
        #expect(fastPathTakes(options))
        #expect(fullParserTakes(options))
    }
}
