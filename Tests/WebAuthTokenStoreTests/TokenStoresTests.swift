// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport
import WebAuthTokenStore

/// ``TokenStores``: finding and saving profiles, the index, when a stored token is refreshed,
/// and refreshing through ``StoredProfile`` from many tasks and processes at once.
@Suite struct TokenStoresTests {
    /// A state home of its own: the file store and the index live under it; no keyring.
    static func environment(_ stateHome: String) -> [String: String] {
        ["HOME": stateHome, "XDG_STATE_HOME": stateHome, "DBUS_SESSION_BUS_ADDRESS": ""]
    }

    // MARK: When a stored token is refreshed

    private func expiring(expiresIn seconds: Double?, refreshToken: String? = "rt", configured: Bool = true)
        -> StoredTokens
    {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let configuration = ClientConfiguration(issuer: URL(string: "https://issuer.example")!, clientID: "cli")
        return StoredTokens(
            tokens: TokenSet(
                accessToken: "at", refreshToken: refreshToken, expiresAt: seconds.map { now.addingTimeInterval($0) }),
            clientID: "cli", configuration: configured ? configuration : nil)
    }

    @Test func aTokenIsRefreshedOnlyInsideTheMinimumValidity() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let minute = Duration.seconds(60)
        #expect(TokenFreshness.of(expiring(expiresIn: 3600), now: now, minimumValidity: minute) == .fresh)
        #expect(TokenFreshness.of(expiring(expiresIn: nil), now: now, minimumValidity: .seconds(7200)) == .fresh)
        let stale = expiring(expiresIn: 30)
        #expect(
            TokenFreshness.of(stale, now: now, minimumValidity: minute) == .needsRefresh(stale.configuration!))
        #expect(
            TokenFreshness.of(expiring(expiresIn: 3600), now: now, minimumValidity: .seconds(7200))
                == .needsRefresh(stale.configuration!))
        #expect(
            TokenFreshness.of(expiring(expiresIn: -5, refreshToken: nil), now: now, minimumValidity: minute)
                == .cannotRefresh(.noRefreshToken))
        #expect(
            TokenFreshness.of(expiring(expiresIn: 10, configured: false), now: now, minimumValidity: minute)
                == .cannotRefresh(.noConfiguration))
        let error = TokenFreshness.CannotRefresh.noRefreshToken.error(profile: "work")
        #expect(error.code == .noRefreshToken)
        #expect(error.message.contains(#"profile "work""#))
    }

    @Test func theStoresPublicErrorsTakeTheOneErrorForm() {
        // Reported alike by code that catches `any WebAuthError`: `code: message`.
        let errors: [any WebAuthError] = [
            TokenFreshness.CannotRefresh.noConfiguration,
            AgentClient.Failure(code: .notSignedIn, message: "profile \"work\" is no longer signed in"),
        ]
        #expect(
            errors.map(\.description) == [
                "noConfiguration: the entry was saved without its client configuration, so it cannot be refreshed",
                #"notSignedIn: profile "work" is no longer signed in"#,
            ])
        #expect(TokenFreshness.CannotRefresh.noRefreshToken.code == TokenStoreError.Code.noRefreshToken)
    }

    @Test func entriesWrittenBeforeTheConfigurationFieldStillDecode() throws {
        let old = #"""
            {"clientID":"client-1","issuer":"https://issuer.example","savedAt":"2027-01-15T08:00:00Z",
             "tokenEndpoint":"https://issuer.example/token","version":1,
             "tokens":{"accessToken":"at-1","tokenType":"Bearer","refreshToken":"rt-1","scopes":["openid"],
                       "receivedAt":"2027-01-15T08:00:00Z","expiresAt":"2030-03-17T17:46:40Z"}}
            """#
        let entry = try StoredTokens.decode(Data(old.utf8), profile: "old", location: "old.json")
        #expect(entry.configuration == nil)
        #expect(entry.tokens.refreshToken == "rt-1")
        #expect(
            TokenFreshness.of(entry, now: Date(timeIntervalSince1970: 1_900_000_000), minimumValidity: .seconds(60))
                == .cannotRefresh(.noConfiguration))

        let configuration = ClientConfiguration(
            issuer: URL(string: "https://issuer.example")!, clientID: "client-1", clientSecret: "kept")
        let new = StoredTokens(tokens: entry.tokens, configuration: configuration)
        let decoded = try StoredTokens.decode(try new.encoded(), profile: "new", location: "new.json")
        #expect(decoded.configuration == configuration)
        #expect(!decoded.description.contains("kept"), "the description never shows the secret")
    }

    // MARK: Finding and saving

    @Test func anUnsafeTokenDirectoryIsReportedNotTakenForNoSignIn() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        // The token directory is a symbolic link: the file store refuses it, and finding a
        // profile must say so rather than report it as never signed in.
        try FileManager.default.createDirectory(
            atPath: temporary.path + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: temporary.path + "/webauth", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: temporary.path + "/webauth/tokens", withDestinationPath: temporary.path + "/elsewhere")
        let stores = TokenStores(environment: Self.environment(temporary.path))
        await #expect {
            _ = try await stores.find(profile: "default")
        } throws: { ($0 as? TokenStoreError)?.code == .insecureDirectory }
    }

    @Test func theIndexRemembersStoresIn0600AndForgets() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let index = ProfileIndex(environment: Self.environment(temporary.path))
        #expect(index.path == temporary.path + "/webauth/profiles.json")
        #expect(index.kind(of: "work") == nil)
        try await index.record(.keyring, for: "work")
        try await index.record(.file, for: "home")
        #expect(index.kind(of: "work") == .keyring)
        #expect(index.entries() == ["work": .keyring, "home": .file])
        #expect(permissions(of: index.path)?.mode == 0o600)
        #expect(permissions(of: temporary.path + "/webauth")?.mode == 0o700)
        try await index.forget("work")
        #expect(index.entries() == ["home": .file])

        try Data("not json".utf8).write(to: URL(fileURLWithPath: index.path))
        #expect(index.entries().isEmpty, "an unreadable index means: not known")
    }

    @Test func savingRecordsTheStoreAndFindingAndSigningOutFollowIt() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let stores = TokenStores(environment: Self.environment(temporary.path))
        #expect(try await stores.find(profile: "work") == nil)
        await #expect {
            _ = try await stores.freshTokens(profile: "work")
        } throws: { ($0 as? TokenStoreError)?.code == .notSignedIn }

        // No keyring here: automatic saves in files, and the index says so.
        let saved = try await stores.save(entry(1), profile: "work")
        #expect(saved.kind == .file)
        #expect(stores.index.kind(of: "work") == .file)
        let found = try #require(try await stores.find(profile: "work"))
        #expect(found.store.kind == .file)
        #expect(found.entry == entry(1))
        // Fresh (it expires in 2030): handed out as stored, no client needed.
        #expect(try await stores.freshTokens(profile: "work") == entry(1).tokens)

        // Saved without a configuration, it cannot make a provider.
        await #expect {
            _ = try await stores.accessTokenProvider(profile: "work")
        } throws: { ($0 as? TokenStoreError)?.code == .noConfiguration }

        // Listed from the file store; a keyring the index names but that is not there is listed
        // as a failure for its profile, and only for it.
        try await stores.index.record(.keyring, for: "elsewhere")
        let listed = await stores.list()
        #expect(listed.map(\.profile) == ["work", "elsewhere"])
        #expect(try listed[0].entry.get() == entry(1))
        #expect(listed[1].store == .keyring)
        #expect(throws: TokenStoreError.self) { try listed[1].entry.get() }
        #expect(await stores.list(profile: "work").map(\.profile) == ["work"], "its store is known: files")
        #expect(await stores.list(profile: "nobody").map(\.store) == [.keyring], "it may be in the keyring")
        try await stores.index.forget("elsewhere")

        let signOut = try await stores.signOut(profile: "work")
        #expect(signOut.store == .file)
        guard case .notPossible = signOut.revocation else {
            Issue.record("expected notPossible, got \(signOut.revocation)")
            return
        }
        #expect(try await stores.find(profile: "work") == nil)
        #expect(stores.index.kind(of: "work") == nil)
    }

    /// Refreshed tokens the keyring does not keep (here: grown past its 8 KiB) go to files with
    /// the automatic selection — the index follows, the keyring item goes — and make the update
    /// fail, the entry unchanged, when the keyring was asked for by name.
    @Test(TestFixture.keyring.required, .timeLimit(.minutes(3)))
    func refreshedTokensTheKeyringDoesNotKeepGoToFiles() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let keyring = try await PrivateKeyring.start(in: home.path)
        do {
            var environment = keyring.environment
            environment["XDG_STATE_HOME"] = home.path + "/state"
            let original = entry(1)
            func grown(_ tokens: TokenSet) -> TokenSet {
                var tokens = tokens
                tokens.accessToken = "at-2"
                tokens.refreshToken = "rt-2"
                tokens.idToken = String(repeating: "x", count: 9000)
                return tokens
            }

            let named = TokenStores(selection: .keyring, environment: environment)
            #expect(try await named.save(original, profile: "grows").kind == .keyring)
            await #expect {
                _ = try await StoredProfile("grows", in: named).update(grown)
            } throws: { ($0 as? TokenStoreError)?.code == .entryTooLarge }
            #expect(try await named.find(profile: "grows")?.entry == original, "unchanged")

            let automatic = TokenStores(environment: environment)
            let kept = try await StoredProfile("grows", in: automatic).update(grown)
            #expect(kept.refreshToken == "rt-2")
            #expect(automatic.index.kind(of: "grows") == .file)
            #expect(try await automatic.fileStore().load(profile: "grows")?.tokens == kept)
            #expect(try await automatic.keyringStore().load(profile: "grows") == nil, "one place only")
            #expect(try await automatic.find(profile: "grows")?.store.kind == .file)
        } catch {
            await keyring.stop()
            throw error
        }
        await keyring.stop()
    }

    // MARK: Expiring a refused token

    @Test func expiringATokenTouchesOnlyThatTokenAndKeepsTheSignIn() async throws {
        let temporary = try TemporaryDirectory()
        defer { temporary.remove() }
        let stores = TokenStores(selection: .file, environment: Self.environment(temporary.path))
        // Whole seconds, which survive the entry's JSON.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let stored = StoredTokens(
            tokens: TokenSet(accessToken: "newer", refreshToken: "rt", expiresAt: now.addingTimeInterval(3600)),
            clientID: "cli",
            configuration: ClientConfiguration(issuer: URL(string: "https://issuer.example")!, clientID: "cli"))
        try await stores.save(stored, profile: "work")
        let saved = try #require(try await stores.find(profile: "work")?.entry)

        #expect(try await stores.expireAccessToken(profile: "work", ifItIs: "older", now: now) == false)
        #expect(try await stores.find(profile: "work")?.entry == saved, "another token: unchanged")
        #expect(try await stores.expireAccessToken(profile: "nobody", ifItIs: "newer", now: now) == false)

        #expect(try await stores.expireAccessToken(profile: "work", ifItIs: "newer", now: now))
        let expired = try #require(try await stores.find(profile: "work")?.entry)
        #expect(expired.tokens.expiresAt == now)
        #expect(expired.tokens.refreshToken == "rt" && expired.tokens.accessToken == "newer")
        #expect(expired.configuration == stored.configuration)
        #expect(
            TokenFreshness.of(expired, now: now, minimumValidity: .seconds(60)) == .needsRefresh(stored.configuration!))
    }

    // MARK: Refreshing from many holders

    /// Signs the profile `shared` in to `provider` in `stateHome`, through the file store.
    static func signIn(_ provider: EmbeddedProvider, stateHome: String) async throws -> StoredTokens {
        let configuration = ClientConfiguration(
            issuer: provider.issuer, clientID: EmbeddedProvider.Client.demo.id,
            scopes: ["openid", "profile", "offline_access"])
        let tokens = try await OAuthClient(configuration: configuration)
            .signIn(environment: .standard(browser: ScriptedUserAgent()))
        let stores = TokenStores(selection: .file, environment: environment(stateHome))
        try await stores.save(StoredTokens(tokens: tokens, configuration: configuration), profile: "shared")
        return try #require(try await stores.find(profile: "shared")?.entry)
    }

    /// The check that the tests below can fail: two providers, each with its own copy of the
    /// tokens and no shared persistence, both refresh with the same refresh token — and the
    /// provider, seeing it reused, refuses the second and revokes the family.
    @Test func providersWithoutSharedPersistenceReuseTheRefreshToken() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let temporary = try TemporaryDirectory()
            defer { temporary.remove() }
            let stored = try await Self.signIn(provider, stateHome: temporary.path)
            let client = try OAuthClient(configuration: try #require(stored.configuration))
            let first = AccessTokenProvider(client: client, tokens: stored.tokens, refreshMargin: .seconds(7200))
            let second = AccessTokenProvider(client: client, tokens: stored.tokens, refreshMargin: .seconds(7200))
            _ = try await first.accessToken()
            await #expect(throws: OAuthError.self) { _ = try await second.accessToken() }
            #expect(provider.requests(to: .token).contains { $0.error == "invalid_grant" })
        }
    }

    /// Tasks of this process — two providers, several callers each — and two child processes
    /// refresh the same profile through ``StoredProfile``, every call forced to refresh: each
    /// refresh token is presented once, none is refused, and the one stored last is live.
    @Test(.timeLimit(.minutes(5)))
    func tasksAndProcessesRefreshingThroughTheStoreKeepTheRotatedToken() async throws {
        try await EmbeddedProvider.withProvider { provider in
            let temporary = try TemporaryDirectory()
            defer { temporary.remove() }
            _ = try await Self.signIn(provider, stateHome: temporary.path)
            let perChild = 8
            let children = try (0..<2).map { index in
                try ChildProcess.start(
                    role: "refresher", directory: temporary.path,
                    extra: ["WEBAUTH_TOKENSTORE_TEST_COUNT": "\(perChild)"], log: temporary.path + "/child-\(index).log"
                )
            }
            let stores = TokenStores(
                selection: .file, environment: Self.environment(temporary.path),
                lockTimeout: ConcurrencyAndCrashTests.patientLock)
            let providers = 2
            let callersEach = 4
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<providers {
                    // Forced: the tokens live an hour, and the margin is two.
                    let accessTokens = try await stores.accessTokenProvider(
                        profile: "shared", refreshMargin: .seconds(7200))
                    for _ in 0..<callersEach {
                        group.addTask { try await accessTokens.refreshNow().accessToken }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            for (index, child) in children.enumerated() {
                let status = try await exitStatus(of: child, within: .seconds(180), what: "refresher \(index)")
                let log = (try? String(contentsOfFile: temporary.path + "/child-\(index).log", encoding: .utf8)) ?? ""
                #expect(status == 0, "child \(index): \(log)")
            }
            #expect(tokens.allSatisfy { provider.isActive(accessToken: $0) }, "every caller got a live access token")

            let refreshes = provider.requests(to: .token).filter { $0.grantType == "refresh_token" }
            #expect(refreshes.allSatisfy { $0.status == 200 && $0.error == nil }, "\(refreshes)")
            // Callers of one provider share its refresh; each provider and each child call refreshes.
            #expect(refreshes.count >= providers + 2 * perChild, "\(refreshes.count) refreshes")
            let final = try #require(try await stores.find(profile: "shared")?.entry)
            #expect(provider.isActive(refreshToken: try #require(final.tokens.refreshToken)))
        }
    }
}
