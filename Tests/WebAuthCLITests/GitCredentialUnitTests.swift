import Foundation
import Testing
import WebAuthCredentialHelpers
import WebAuthOAuth

@testable import WebAuthCLI

/// The pure decisions of `webauth git-credential`: which hosts `setup` accepts, which
/// descriptions get a token, the username convention and the helper line.
@Suite("webauth git-credential decisions")
struct GitCredentialUnitTests {
    @Test(arguments: ["github.com", "git.example.com:8443", "localhost", "127.0.0.1:1", "a-b.c"])
    func plainHostsAreAccepted(_ host: String) {
        #expect(GitCredentialSetup.target(from: host)?.scheme == "https")
        #expect(GitCredentialSetup.target(from: host)?.host == host)
    }

    @Test(arguments: [
        "", "host:", "host:0", "host:65536", "host:1:2", "-host", ".host", "host-", "a..b", "a b", "a/b", "u@h",
        "h?x", "h#x", "https://h", "http://example.com", "[::1]", "héllo.example", "h\nx",
    ])
    func otherHostsAreRefused(_ host: String) {
        #expect(GitCredentialSetup.target(from: host) == nil)
    }

    @Test func plainHTTPOnlyForLoopback() throws {
        let target = try #require(GitCredentialSetup.target(from: "http://127.0.0.1:8080"))
        #expect(target.scheme == "http" && target.host == "127.0.0.1:8080")
        #expect(GitCredentialCommand.mayCarryToken(GitCredential(protocol: "https", host: "example.com")))
        #expect(GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "127.0.0.1:8080")))
        #expect(GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "localhost")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "example.com")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(protocol: "http", host: "127.0.0.1.example.com")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(protocol: "ssh", host: "example.com")))
        #expect(!GitCredentialCommand.mayCarryToken(GitCredential(host: "example.com")))
    }

    @Test func theUsernameFollowsTheProvider() {
        #expect(GitCredentialCommand.conventionalUsername(for: .github(clientID: "x")) == "x-access-token")
        #expect(GitCredentialCommand.conventionalUsername(for: .gitlab(clientID: "x")) == "oauth2")
        #expect(GitCredentialCommand.conventionalUsername(for: nil) == "oauth2")
        let enterprise = ClientConfiguration(
            endpoints: .init(token: URL(string: "https://api.github.com/login/oauth/access_token")), clientID: "x")
        #expect(GitCredentialCommand.conventionalUsername(for: enterprise) == "x-access-token")
    }

    @Test func theHelperLineQuotesThePathForTheShell() {
        let setup = GitCredentialSetup(
            scheme: "https", host: "example.com", profile: "work", store: .file, configurationFile: nil)
        #expect(setup.key == "credential.https://example.com.helper")
        #expect(
            setup.helperValue(executable: "/opt/it's here/webauth")
                == "!'/opt/it'\\''s here/webauth' git-credential --profile work --store file")
    }
}
