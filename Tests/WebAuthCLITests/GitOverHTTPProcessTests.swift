// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCredentialHelpers
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

@testable import WebAuthCLI

/// Real `git clone` and `git push` over smart HTTP, with `webauth git-credential` as git's
/// helper and the token of a profile signed in (in Chromium) at django-oauth-toolkit; the git
/// server checks each password at that provider's UserInfo endpoint.
@Suite(
    "git clone and push with webauth's credential helper", .serialized, TestFixture.git.required,
    TestFixture.djangoProvider.required, TestFixture.chromium.required)
struct GitOverHTTPProcessTests {
    /// Makes `accessToken` expired in the provider's database, as time would.
    private func expireAtProvider(_ provider: IndependentProvider, accessToken: String) async throws {
        let python = try #require(TestFixture.python)
        let script = """
            import sqlite3, sys
            connection = sqlite3.connect(sys.argv[1])
            changed = connection.execute(
                "UPDATE oauth2_provider_accesstoken SET expires = '2000-01-01 00:00:00' WHERE token = ?",
                (sys.stdin.read(),)).rowcount
            connection.commit()
            sys.exit(0 if changed == 1 else 1)
            """
        let database = provider.dataDirectory.appendingPathComponent("provider.sqlite3").path
        let process = try CLIProcess(
            ["-c", script, database], keepStandardInputOpen: true, executable: python)
        process.finishInput(Array(accessToken.utf8))
        let status = try await process.waitForExit(timeout: .seconds(30))
        try #require(status == 0, "expiring the token failed: \(process.standardError)")
    }

    @Test func cloneAndPushWithTheProfilesTokenThenRecoverFromAnExpiredOne() async throws {
        let sandbox = try ProfileSandbox.forGit()
        defer { sandbox.remove() }
        try await IndependentProvider.withProvider { provider in
            // Sign in at the provider as `webauth login` would, and keep the sign-in as it does.
            let configuration = ClientConfiguration(
                issuer: provider.issuer, clientID: provider.publicClientID, scopes: IndependentProvider.scopes)
            let client = try OAuthClient(configuration: configuration, requestTimeout: .seconds(20))
            let tokens = try await provider.signIn(with: client)
            try #require(tokens.refreshToken != nil)
            try await TokenStores(selection: .file, environment: sandbox.environment).save(
                StoredTokens(
                    tokens: tokens, clientID: configuration.clientID, issuer: provider.issuer.absoluteString,
                    tokenEndpoint: provider.tokenEndpoint.absoluteString, configuration: configuration),
                profile: "django")

            // A bare repository with one commit, served over HTTP.
            let repositories = sandbox.root + "/repositories"
            let seed = sandbox.root + "/seed"
            for arguments in [
                ["init", "--quiet", "--bare", "--initial-branch=main", repositories + "/project.git"],
                ["init", "--quiet", "--initial-branch=main", seed],
            ] {
                let made = try await sandbox.git(arguments)
                try #require(made.status == 0, "\(arguments): \(made.stderr)")
            }
            try "first\n".write(toFile: seed + "/README", atomically: true, encoding: .utf8)
            for arguments in [
                ["add", "README"], ["commit", "--quiet", "-m", "first"],
                ["push", "--quiet", repositories + "/project.git", "main"],
            ] {
                let done = try await sandbox.git(arguments, in: seed)
                try #require(done.status == 0, "\(arguments): \(done.stderr)")
            }
            let server = try await GitHTTPServer(repositories: repositories, userinfo: provider.userinfoEndpoint)
            let hostPort = String(server.origin.dropFirst("http://".count))

            let setup = try await sandbox.run([
                "git-credential", "setup", server.origin, "--profile", "django", "--store", "file",
            ])
            try #require(setup.status == 0, "setup: \(setup.stderr)")

            // git credential fill through the configured helper.
            let fill = try await sandbox.git(["credential", "fill"], input: "protocol=http\nhost=\(hostPort)\n\n")
            #expect(fill.status == 0, "stderr: \(fill.stderr)")
            let filled = try GitCredential(reading: Array(fill.stdout.utf8))
            #expect(filled.username == "oauth2")
            #expect(filled.password == tokens.accessToken)

            // Clone and push.
            let work = sandbox.root + "/work"
            let clone = try await sandbox.git(["clone", "--quiet", server.origin + "/project.git", work])
            #expect(clone.status == 0, "clone: \(clone.stderr)")
            try "second\n".write(toFile: work + "/README", atomically: true, encoding: .utf8)
            _ = try await sandbox.git(["commit", "--quiet", "-am", "second"], in: work)
            let push = try await sandbox.git(["push", "--quiet", "origin", "main"], in: work)
            #expect(push.status == 0, "push: \(push.stderr)")
            let accepted = try await server.log().filter { $0["accepted"] as? Bool == true }
            #expect(accepted.contains { ($0["path"] as? String)?.hasSuffix("git-receive-pack") == true })
            #expect(accepted.allSatisfy { $0["username"] as? String == "oauth2" })
            let entry = try #require(try sandbox.storedEntry("django"))
            #expect(!containsSecret(clone.stderr + push.stderr + fill.stderr, of: entry))

            // The access token expires at the provider (its refresh token stays good): git's next
            // push is refused, git tells the helper `erase`, and the stored token is marked expired.
            try await expireAtProvider(provider, accessToken: tokens.accessToken)
            try "third\n".write(toFile: work + "/README", atomically: true, encoding: .utf8)
            _ = try await sandbox.git(["commit", "--quiet", "-am", "third"], in: work)
            let refused = try await sandbox.git(["push", "--quiet", "origin", "main"], in: work)
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("Authentication failed"), "\(refused.stderr)")
            let erased = try #require(try sandbox.storedEntry("django"))
            #expect(erased.tokens.accessToken == tokens.accessToken)
            #expect(erased.tokens.expiresAt.map { $0 <= Date() } == true, "erase marked it expired")
            #expect(erased.tokens.refreshToken == tokens.refreshToken, "erase is not a sign-out")

            // git's next run gets a refreshed token from the helper, and the push goes through.
            let retried = try await sandbox.git(["push", "--quiet", "origin", "main"], in: work)
            #expect(retried.status == 0, "push after refresh: \(retried.stderr)")
            let refreshed = try #require(try sandbox.storedEntry("django"))
            #expect(refreshed.tokens.accessToken != tokens.accessToken, "refreshed")
            #expect(refreshed.tokens.refreshToken != tokens.refreshToken, "the rotated refresh token is kept")
            #expect(refreshed.tokens.expiresAt.map { $0 > Date() } == true)
            for output in [refused.stderr, retried.stderr] {
                #expect(!containsSecret(output, of: refreshed) && !containsSecret(output, of: entry))
            }

            // Revoked at the provider: django-oauth-toolkit revokes an access token's refresh token
            // with it, so after git's `erase` the refresh is refused; the helper says to sign in
            // again (exit 9, shown by git) and the stored entry stays as it was.
            try await client.revoke(token: refreshed.tokens.accessToken, hint: .accessToken)
            let revoked = try await sandbox.git(["push", "--quiet", "origin", "main"], in: work)
            #expect(revoked.status != 0)
            let afterErase = try #require(try sandbox.storedEntry("django"))
            #expect(afterErase.tokens.expiresAt.map { $0 <= Date() } == true, "erase marked it expired")
            let next = try await sandbox.git(["push", "--quiet", "origin", "main"], in: work)
            #expect(next.status != 0)
            #expect(next.stderr.contains("the provider refused the refresh token (invalid_grant)"), "\(next.stderr)")
            #expect(next.stderr.contains("sign in again with `webauth login --profile django …`"))
            #expect(try sandbox.storedEntry("django") == afterErase, "nothing stored is lost")
            #expect(!containsSecret(revoked.stderr + next.stderr, of: afterErase))
            await server.stop()
        }
    }
}
