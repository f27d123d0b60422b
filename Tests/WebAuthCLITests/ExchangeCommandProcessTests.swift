import Foundation
import Testing
import WebAuthOAuth
import WebAuthTestSupport

/// `webauth exchange` as a real process against the embedded provider: the subject token read
/// from a file (never the command line), the exchanged token printed alone, and the provider's
/// refusals as the command's errors.
@Suite("webauth exchange, run as a process")
struct ExchangeCommandProcessTests {
    static var configuration: EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.Configuration()
        configuration.tokenExchangeTargets = ["billing"]
        return configuration
    }

    @Test func aTokenIsExchangedAndPrintedAlone() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await EmbeddedProvider.withProvider(Self.configuration) { provider in
            let client = try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
                    scopes: ["openid", "profile"]))
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let file = sandbox.root + "/subject-token"
            try Data((tokens.accessToken + "\n").utf8).write(to: URL(fileURLWithPath: file))

            let exchanged = try await sandbox.run([
                "exchange", "--issuer", provider.issuer.absoluteString, "--client-id", EmbeddedProvider.Client.demo.id,
                "--subject-token-file", file, "--audience", "billing",
            ])
            #expect(exchanged.status == 0, "stderr: \(exchanged.stderr)")
            let token = exchanged.stdout.trimmingCharacters(in: .newlines)
            #expect(exchanged.stdout == token + "\n")
            #expect(provider.audiences(ofAccessToken: token) == ["billing"])
            #expect(!exchanged.stderr.contains(tokens.accessToken))

            let refused = try await sandbox.run([
                "exchange", "--issuer", provider.issuer.absoluteString, "--client-id", EmbeddedProvider.Client.demo.id,
                "--subject-token-file", file, "--audience", "elsewhere", "--json",
            ])
            #expect(refused.status != 0)
            #expect(refused.stdout.contains("invalid_target") || refused.stderr.contains("invalid_target"))
            #expect(!(refused.stdout + refused.stderr).contains(tokens.accessToken))
        }
    }

    @Test func anEmptyFileOrAMissingTargetIsAUsageError() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let file = sandbox.root + "/empty"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let noTarget = try await sandbox.run([
            "exchange", "--issuer", "https://id.example", "--client-id", "c", "--subject-token-file", file,
        ])
        #expect(noTarget.status != 0)
        #expect(noTarget.stderr.contains("--audience or --resource"))
        let badType = try await sandbox.run([
            "exchange", "--issuer", "https://id.example", "--client-id", "c", "--subject-token-file", file,
            "--audience", "a", "--subject-token-type", "bogus",
        ])
        #expect(badType.stderr.contains("is not a token type"))
    }
}
