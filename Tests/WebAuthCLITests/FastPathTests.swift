// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthCredentialHelpers
import WebAuthFastPath
import WebAuthOAuth
import WebAuthTokenFiles
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An entry with every field the store writes set, for format checks and process tests.
func fullEntry(
    accessToken: String = "fast-access-token", tokenType: String = "Bearer", expiresIn: TimeInterval? = 3600,
    idTokenExpiresIn: TimeInterval = 3600, refreshToken: String? = "fast-refresh-token",
    providerName: String? = "Example", tokenEndpoint: String = "https://id.example.com/token",
    withConfiguration: Bool = true
) -> StoredTokens {
    let now = Date()
    let claims = IDTokenClaims(
        issuer: "https://id.example.com", subject: "ada", audience: ["cli"],
        expiresAt: now.addingTimeInterval(idTokenExpiresIn), issuedAt: now, nonce: "n", authorizedParty: "cli",
        authenticatedAt: now, email: "ada@example.com", emailVerified: true, name: "Ada", preferredUsername: "ada")
    let tokens = TokenSet(
        accessToken: accessToken, tokenType: tokenType, refreshToken: refreshToken, idToken: "header.payload.signature",
        idTokenClaims: claims, expiresAt: expiresIn.map { now.addingTimeInterval($0) }, scopes: ["openid"],
        receivedAt: now)
    guard withConfiguration else { return StoredTokens(tokens: tokens, clientID: "cli") }
    let configuration = ClientConfiguration(
        issuer: URL(string: "https://id.example.com"),
        endpoints: .init(
            authorization: URL(string: "https://id.example.com/authorize"), token: URL(string: tokenEndpoint),
            revocation: URL(string: "https://id.example.com/revoke"),
            userInfo: URL(string: "https://id.example.com/me"),
            deviceAuthorization: URL(string: "https://id.example.com/device"),
            jwks: URL(string: "https://id.example.com/jwks"),
            pushedAuthorization: URL(string: "https://id.example.com/par")),
        clientID: "cli", clientSecret: "s", name: providerName, scopes: ["openid"],
        clientAuthentication: .clientSecretPost, additionalAuthorizationParameters: ["prompt": "consent"],
        usePushedAuthorization: .always)
    return StoredTokens(tokens: tokens, configuration: configuration)
}

@Suite("Fast path: the command lines it answers")
struct FastPathCommandTests {
    @Test("Options are kept once each, in the order first given, with their values in order")
    func givenOptions() {
        var given = GivenOptions()
        #expect(given.isEmpty)
        given.append("a.example", to: "--profile-for")
        given.append(nil, to: "--device")
        given.append("b.example", to: "--profile-for")
        #expect(given["--profile-for"] == ["a.example", "b.example"])
        #expect(given["--device"] == [])
        #expect(given["--issuer"] == nil)
        #expect(given.options.map(\.name) == ["--profile-for", "--device"])
        #expect(given == ["--profile-for": ["a.example", "b.example"], "--device": []])
    }

    @Test("No sign-in option passes the full program's checks, so a plain call need not ask")
    func noSignInOptionIsAccepted() {
        #expect(SignInOptionSyntax.accepts([:]))
        #expect(SignInOptionSyntax.accepts(GivenOptions()))
    }

    @Test("The program reads no environment variable but those the fast path names")
    func environmentRead() {
        for arguments in [["token"], ["exec-credential"], ["git-credential", "get"]] {
            for environment in [
                ["HOME": "/nonexistent-webauth", "XDG_RUNTIME_DIR": "/nonexistent-webauth/run"],
                ["XDG_STATE_HOME": "/nonexistent-webauth", "WEBAUTH_AGENT_SOCK": "/nonexistent-webauth/agent.sock"],
            ] {
                var asked: [String] = []
                let answer = FastPath.answer(
                    arguments,
                    environmentValue: { name in
                        asked.append(name)
                        return environment[name]
                    }, now: Date(), standardInput: { nil })
                #expect(answer == nil)
                #expect(asked.contains(FastPath.switchVariable))
                #expect(asked.allSatisfy(FastPath.environmentNames.contains), "\(arguments): \(asked)")
            }
        }
        #expect(Set(FastPath.environmentNames).count == FastPath.environmentNames.count)
    }

    @Test("The everyday command lines are recognised, with their options in either spelling")
    func recognised() throws {
        #expect(
            FastPathCommand(arguments: ["token"]) == .token(profile: "default", minimumValidity: 60, store: "automatic")
        )
        #expect(
            FastPathCommand(arguments: ["token", "--profile=work", "--min-validity", "0.5", "--store", "file"])
                == .token(profile: "work", minimumValidity: 0.5, store: "file"))
        #expect(
            FastPathCommand(arguments: ["git-credential", "--profile", "gh", "--store", "file", "get"])
                == .gitCredentialGet(profile: "gh", username: nil, store: "file"))
        #expect(
            FastPathCommand(arguments: ["exec-credential", "--token-type", "access", "--profile", "k"])
                == .execCredential(profile: "k", idToken: false, minimumValidity: 60, store: "automatic"))
        #expect(
            FastPathCommand(arguments: ["exec-credential"])
                == .execCredential(profile: "default", idToken: true, minimumValidity: 60, store: "automatic"))
        #expect(
            FastPathCommand(arguments: [
                "git-credential", "--profile-for", "Git.Example.com", "--profile-for=two.example:8443=second", "get",
            ])
                == .gitCredentialGet(
                    profile: "default", username: nil, store: "automatic",
                    profileFor: [
                        try #require(GitHostBinding.ProfileFor(argument: "git.example.com")),
                        try #require(GitHostBinding.ProfileFor(argument: "two.example:8443=second")),
                    ]))
        #expect(
            FastPathCommand(arguments: [
                "exec-credential", "--cluster-server", "https://a.example:6443", "--cluster-server=https://b.example",
            ])
                == .execCredential(
                    profile: "default", idToken: true, minimumValidity: 60, store: "automatic",
                    clusterServers: ["https://a.example:6443", "https://b.example"]))
    }

    @Test(
        "The helpers' sign-in options are skipped when the full program is sure to take them",
        arguments: [
            ["--issuer", "https://id.example.com", "--client-id", "cli", "--scope", "openid profile", "--scope=email"],
            ["--preset=github", "--client-id", "Iv1.x", "--browser", "firefox", "--ephemeral", "--timeout", "90.5"],
            ["--config", "/home/ada/client.json", "--device", "--par", "always", "--dpop"],
            ["--no-browser", "--redirect-uri", "http://127.0.0.1:8400/cb", "--tenant", "t"],
            ["--browser", "/usr/bin/chromium", "--par=never"],
        ])
    func signInOptionsSkipped(options: [String]) {
        #expect(
            FastPathCommand(arguments: ["git-credential", "--profile", "work"] + options + ["get"])
                == .gitCredentialGet(profile: "work", username: nil, store: "automatic"))
        #expect(
            FastPathCommand(arguments: ["exec-credential"] + options)
                == .execCredential(profile: "default", idToken: true, minimumValidity: 60, store: "automatic"))
        // `token` takes none of them.
        #expect(FastPathCommand(arguments: ["token"] + options) == nil)
    }

    @Test(
        "Sign-in options the full program refuses, or might read differently, are left to it",
        arguments: [
            ["--client-secret", "s", "--issuer", "https://id.example.com", "--client-id", "c"],
            ["--issuer", "https://id.example.com"], ["--issuer", "id.example.com", "--client-id", "c"],
            ["--issuer", "https://a.example", "--preset", "github", "--client-id", "c"],
            ["--redirect-uri", "no-scheme"], ["--browser", "lynx"], ["--par", "sometimes"], ["--timeout", "0"],
            ["--timeout", "1e3"], ["--device", "--no-browser"], ["--device", "--browser", "firefox"],
            ["--device", "--ephemeral"], ["--no-browser", "--browser", "system"], ["--device=true"],
            ["--dpop", "--dpop"], ["--client-id", "a", "--client-id", "b"], ["--client-id"], ["--client-id", "-x"],
            ["--client-id="], ["--scope"], ["--tenant", "--device"], ["--issuer-url", "https://id.example.com"],
        ])
    func signInOptionsLeftToTheFullProgram(options: [String]) {
        #expect(FastPathCommand(arguments: ["git-credential"] + options + ["get"]) == nil)
        #expect(FastPathCommand(arguments: ["exec-credential"] + options) == nil)
    }

    @Test(
        "Anything else is left to the full program",
        arguments: [
            [], ["--help"], ["token", "--help"], ["token", "-h"], ["token", "--json"], ["token", "--profile"],
            ["token", "--profile", "a", "--profile", "b"], ["token", "--profile", "--help"], ["token", "extra"],
            ["token", "--profile", "../x"], ["token", "--min-validity", "1e3"], ["token", "--min-validity", "-1"],
            ["token", "--min-validity", "inf"], ["token", "--min-validity", "99999999"], ["token", "--store", "disk"],
            ["token", "--", "x"], ["git-credential", "store"], ["git-credential", "get", "extra"],
            ["git-credential", "--profile-for", "a/b", "get"], ["git-credential", "--profile-for", "h=../x", "get"],
            ["git-credential", "--profile-for", "h=", "get"], ["git-credential", "--profile-for", "get"],
            ["exec-credential", "--cluster-server", "k8s.example.com"], ["token", "--cluster-server", "https://k"],
            ["exec-credential", "--cluster-server", "https://u@k8s.example.com"], ["token", "--profile-for", "h"],
            ["git-credential", "setup", "github.com"],
            ["git-credential", "--username=", "get"], ["exec-credential", "--token-type", "refresh"],
            ["login"], ["status"], ["token", "--version"],
        ])
    func leftToTheFullProgram(arguments: [String]) {
        #expect(FastPathCommand(arguments: arguments) == nil)
    }
}

@Suite("Fast path: the stored entry format")
struct CachedEntryFormatTests {
    /// The keys of each object in `entry` as the store encodes it.
    private func keys(of entry: StoredTokens) throws -> (
        entry: Set<String>, tokens: Set<String>, claims: Set<String>, configuration: Set<String>
    ) {
        let object = try #require(try JSONSerialization.jsonObject(with: entry.encoded()) as? [String: Any])
        let tokens = try #require(object["tokens"] as? [String: Any])
        let claims = try #require(tokens["idTokenClaims"] as? [String: Any])
        let configuration = try #require(object["configuration"] as? [String: Any])
        return (Set(object.keys), Set(tokens.keys), Set(claims.keys), Set(configuration.keys))
    }

    @Test("The store writes only the format's keys, at every level")
    func writesTheFormat() throws {
        let written = try keys(of: fullEntry())
        func names<Key: CodingKey & CaseIterable>(_: Key.Type) -> Set<String> {
            Set(Key.allCases.map(\.stringValue))
        }
        #expect(written.entry.isSubset(of: names(TokenEntryFormat.EntryKey.self)))
        #expect(written.tokens.isSubset(of: names(TokenEntryFormat.TokenKey.self)))
        #expect(written.claims.isSubset(of: names(TokenEntryFormat.ClaimKey.self)))
        #expect(written.configuration.isSubset(of: names(TokenEntryFormat.ConfigurationKey.self)))
        let entry = fullEntry()
        #expect(try entry.encoded() == (try TokenEntryFormat.encoder().encode(entry)))
    }

    @Test("A key the reader leaves to the full program makes it refuse the entry, at every level")
    func keysLeftToTheFullProgram() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: fullEntry().encoded()) as? [String: Any])
        func adding(_ key: String, at level: String?) throws -> Data {
            var copy = object
            if let level {
                var inner = copy[level] as! [String: Any]
                inner[key] = "x"
                copy[level] = inner
            } else {
                copy[key] = "x"
            }
            return try JSONSerialization.data(withJSONObject: copy)
        }
        var leftOut = 0
        for key in TokenEntryFormat.TokenKey.allCases where !CachedEntry.reads(key) {
            #expect(CachedEntry(decoding: try adding(key.stringValue, at: "tokens")) == nil, "\(key)")
            leftOut += 1
        }
        for key in TokenEntryFormat.ConfigurationKey.allCases where !CachedEntry.reads(key) {
            #expect(CachedEntry(decoding: try adding(key.stringValue, at: "configuration")) == nil, "\(key)")
            leftOut += 1
        }
        #expect(leftOut == 6)  // dpopKey; dpop, allowsDPoPDowngrade; id, secret, redirectURL
        #expect(TokenEntryFormat.EntryKey.allCases.allSatisfy(CachedEntry.reads))
        #expect(TokenEntryFormat.ClaimKey.allCases.allSatisfy(CachedEntry.reads))
        #expect(!CachedEntry.reads(TokenEntryFormat.TokenKey.dpopKey))
        // Tokens bound to a kept key, even with a configuration that does not say so.
        #expect(CachedEntry(decoding: try adding("dpopKey", at: "tokens")) == nil)
    }

    @Test("What the store writes reads back with the same values")
    func readsWhatTheStoreWrites() throws {
        let stored = fullEntry(providerName: "GitHub")
        let entry = try #require(CachedEntry(decoding: try stored.encoded()))
        #expect(entry.tokens.accessToken == stored.tokens.accessToken)
        #expect(entry.tokens.tokenType == "Bearer")
        #expect(entry.tokens.hasRefreshToken)
        #expect(entry.tokens.idToken == stored.tokens.idToken)
        let claimsExpiry = try #require(stored.tokens.idTokenClaims?.expiresAt)
        #expect(abs(try #require(entry.tokens.idTokenExpiresAt).timeIntervalSince(claimsExpiry)) < 1)
        #expect(abs(try #require(entry.tokens.expiresAt).timeIntervalSince(try #require(stored.tokens.expiresAt))) < 1)
        #expect(entry.configurationName == "GitHub")
        #expect(entry.tokenEndpointHost == "id.example.com")
        let minimal = try #require(CachedEntry(decoding: try fullEntry(withConfiguration: false).encoded()))
        #expect(minimal.configurationName == nil)
    }

    @Test("Exchanged tokens kept in an entry do not keep the fast path from the entry's own token")
    func exchangedTokensAreReadPast() throws {
        var stored = fullEntry()
        #expect(try !keys(of: stored).entry.contains("exchangedTokens"))
        stored.keep(
            StoredExchange(
                target: ExchangeTarget(audience: "billing", scopes: ["b", "a"]),
                tokens: TokenSet(accessToken: "exchanged", expiresAt: Date() + 3600), issuedTokenType: .accessToken))
        let data = try stored.encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let exchanged = try #require((object["exchangedTokens"] as? [[String: Any]])?.first)
        #expect(
            Set(exchanged.keys)
                == Set(TokenEntryFormat.ExchangeKey.allCases.map(\.stringValue)).subtracting(["resource"]))
        #expect(TokenEntryFormat.ExchangeKey.allCases.allSatisfy(CachedEntry.reads))
        #expect(CachedEntry(decoding: data)?.tokens.accessToken == stored.tokens.accessToken)
        // Strict all the same: a key the format does not have among them refuses the entry.
        var stray = object
        var first = exchanged
        first["stray"] = "x"
        stray["exchangedTokens"] = [first]
        #expect(CachedEntry(decoding: try JSONSerialization.data(withJSONObject: stray)) == nil)
    }

    @Test("A DPoP-bound entry is left to the full program, which presents its proofs and refuses it to helpers")
    func dpopBoundIsNotRead() throws {
        var bound = fullEntry(tokenType: "DPoP")
        bound.tokens.dpopKey = DPoPKey()
        bound.configuration?.dpop = .persistent
        #expect(CachedEntry(decoding: try bound.encoded()) == nil)
        // Even with the type spelt Bearer (a provider that downgraded, allowed by the configuration).
        var downgraded = fullEntry()
        downgraded.configuration?.dpop = .persistent
        downgraded.configuration?.allowsDPoPDowngrade = true
        #expect(CachedEntry(decoding: try downgraded.encoded()) == nil)
    }

    @Test("An unknown key at any level, another version or a wrong type is refused")
    func strict() throws {
        let encoded = try fullEntry().encoded()
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        func changed(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var copy = object
            change(&copy)
            return try JSONSerialization.data(withJSONObject: copy)
        }
        #expect(CachedEntry(decoding: encoded) != nil)
        #expect(CachedEntry(decoding: try changed { $0["version"] = 2 }) == nil)
        #expect(CachedEntry(decoding: try changed { $0["dpopKey"] = "k" }) == nil)
        #expect(
            CachedEntry(
                decoding: try changed {
                    var tokens = $0["tokens"] as! [String: Any]
                    tokens["dpopJKT"] = "thumbprint"
                    $0["tokens"] = tokens
                }) == nil)
        #expect(
            CachedEntry(
                decoding: try changed {
                    var tokens = $0["tokens"] as! [String: Any]
                    tokens["expiresAt"] = 12
                    $0["tokens"] = tokens
                }) == nil)
        #expect(
            CachedEntry(
                decoding: try changed {
                    var configuration = $0["configuration"] as! [String: Any]
                    configuration["secret"] = "short form"
                    $0["configuration"] = configuration
                }) == nil)
        #expect(CachedEntry(decoding: Data("{".utf8)) == nil)
    }

    @Test("Freshness is the store's rule: strictly more than the minimum validity left, or no expiry")
    func freshness() throws {
        let now = Date()
        let entry = try #require(CachedEntry(decoding: try fullEntry(expiresIn: 100).encoded()))
        let stored = try StoredTokens.decode(fullEntry(expiresIn: 100).encoded(), profile: "p", location: "here")
        #expect(entry.isFresh(at: now, minimumValidity: .seconds(60)))
        #expect(!entry.isFresh(at: now, minimumValidity: .milliseconds(100_500)))
        let endless = try #require(CachedEntry(decoding: try fullEntry(expiresIn: nil).encoded()))
        #expect(endless.isFresh(at: now, minimumValidity: .seconds(1_000_000)))
        // At, just before and just after the boundary, the store and the fast path agree.
        let expiresAt = try #require(entry.tokens.expiresAt)
        for offset in [-0.001, 0, 0.001] {
            let margin = SecondsRule.duration(max(0, expiresAt.timeIntervalSince(now) + offset))
            #expect(
                entry.isFresh(at: now, minimumValidity: margin) == !stored.tokens.isExpired(at: now, margin: margin))
        }
    }

    @Test("The index reader takes only an index of known store kinds")
    func index() {
        #expect(
            ProfileIndexFormat.storeKinds(decoding: Data(#"{"profiles":{"a":"file","b":"keyring"},"version":1}"#.utf8))
                == ["a": "file", "b": "keyring"])
        #expect(ProfileIndexFormat.storeKinds(decoding: Data(#"{"profiles":{"a":"file"}}"#.utf8)) == nil)
        #expect(ProfileIndexFormat.storeKinds(decoding: Data(#"{"profiles":{"a":"cloud"},"version":1}"#.utf8)) == nil)
    }
}

/// One situation the token commands meet: how the sandbox is prepared, the command line, what
/// standard input and environment it gets, and whether the fast path is expected to answer.
struct FastPathSituation: CustomTestStringConvertible, Sendable {
    var name: String
    var arguments: [String]
    var input: String?
    var environment: [String: String] = [:]
    var fast: Bool
    var prepare: @Sendable (ProfileSandbox) async throws -> Void

    var testDescription: String { name }
}

/// Saves `entry` as the file store does, with an index naming the file store (`index`) and the
/// git hosts `setup` would have recorded for the profile (`gitHosts`).
private func prepared(
    _ entry: StoredTokens, profile: String = "default", index: String? = "file",
    gitHosts: [String] = ["git.example.com"]
)
    -> @Sendable (ProfileSandbox) throws -> Void
{
    { sandbox in
        try FileManager.default.createDirectory(atPath: sandbox.tokenDirectory, withIntermediateDirectories: true)
        chmod(sandbox.stateHome + "/webauth", 0o700)
        chmod(sandbox.tokenDirectory, 0o700)
        let path = sandbox.entryPath(profile)
        #expect(FileManager.default.createFile(atPath: path, contents: try entry.encoded()))
        chmod(path, 0o600)
        if let index {
            // An index from before hosts were recorded has no bindings at all.
            let hosts = gitHosts.map { "\"\($0)\"" }.joined(separator: ",")
            let bindings = gitHosts.isEmpty ? "" : #""bindings":{"\#(profile)":{"gitHosts":[\#(hosts)]}},"#
            let text = #"{\#(bindings)"profiles":{"\#(profile)":"\#(index)"},"version":1}"#
            #expect(FileManager.default.createFile(atPath: sandbox.indexPath, contents: Data(text.utf8)))
        }
    }
}

let gitHTTPS = "protocol=https\nhost=git.example.com\n\n"
let plainExecInfo =
    #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"interactive":false}}"#

/// `KUBERNETES_EXEC_INFO` as client-go writes it with `provideClusterInfo: true`.
func execInfo(server: String) -> String {
    #"{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","spec":{"cluster":{"server":"\#(server)","#
        + #""certificate-authority-data":"LS0t","config":{"any":["thing"]}},"interactive":false}}"#
}

let fastPathSituations: [FastPathSituation] = [
    FastPathSituation(
        name: "token, file store", arguments: ["token", "--store", "file"], fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(name: "token, index says file", arguments: ["token"], fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "token, other profile, min validity", arguments: ["token", "--profile=work", "--min-validity", "30"],
        fast: true, prepare: prepared(fullEntry(), profile: "work")),
    FastPathSituation(
        name: "token, not in the index", arguments: ["token"], fast: false, prepare: prepared(fullEntry(), index: nil)),
    FastPathSituation(
        name: "token, index says keyring", arguments: ["token"], fast: false,
        prepare: prepared(fullEntry(), index: "keyring")),
    FastPathSituation(
        name: "token --json", arguments: ["token", "--json"], fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "token --help", arguments: ["token", "--help"], fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "token, expiring, no refresh token", arguments: ["token"], fast: false,
        prepare: prepared(fullEntry(expiresIn: 30, refreshToken: nil))),
    FastPathSituation(
        name: "token, expired, no configuration", arguments: ["token"], fast: false,
        prepare: prepared(fullEntry(expiresIn: -10, withConfiguration: false))),
    FastPathSituation(
        name: "token, DPoP token type", arguments: ["token"], fast: false,
        prepare: prepared(fullEntry(tokenType: "DPoP"))),
    FastPathSituation(
        name: "token, not signed in", arguments: ["token", "--store", "file"], fast: false, prepare: { _ in }),
    FastPathSituation(
        name: "token, corrupt entry", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            try Data("{\"version\":1,".utf8).write(to: URL(fileURLWithPath: sandbox.entryPath()))
        }),
    FastPathSituation(
        name: "token, an entry field added later", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            var object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.entryPath())))
                as! [String: Any]
            object["proofKey"] = ["kty": "EC"]
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: sandbox.entryPath()))
        }),
    FastPathSituation(
        name: "token, entry readable by others", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            chmod(sandbox.entryPath(), 0o644)
        }),
    FastPathSituation(
        name: "token, entry is a link", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry(), profile: "real")(sandbox)
            symlink(sandbox.entryPath("real"), sandbox.entryPath())
        }),
    FastPathSituation(
        name: "token, directory open to others", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            chmod(sandbox.tokenDirectory, 0o755)
        }),
    FastPathSituation(
        name: "git get, https", arguments: ["git-credential", "--profile", "default", "get"], input: gitHTTPS,
        fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, GitHub's username", arguments: ["git-credential", "--store", "file", "get"], input: gitHTTPS,
        fast: true, prepare: prepared(fullEntry(tokenEndpoint: "https://github.com/login/oauth/access_token"))),
    FastPathSituation(
        name: "git get, --username", arguments: ["git-credential", "--username", "me", "get"], input: gitHTTPS,
        fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, no expiry, no configuration", arguments: ["git-credential", "get"], input: gitHTTPS, fast: true,
        prepare: prepared(fullEntry(expiresIn: nil, withConfiguration: false))),
    FastPathSituation(
        name: "git get, plain http", arguments: ["git-credential", "get"],
        input: "protocol=http\nhost=git.example.com\n\n", fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, http to loopback", arguments: ["git-credential", "get"],
        input: "protocol=http\nhost=127.0.0.1:8080\n\n", fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, malformed input", arguments: ["git-credential", "get"], input: "protocol https\n\n",
        fast: false,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, not signed in", arguments: ["git-credential", "get"], input: gitHTTPS, fast: false,
        prepare: { _ in }),
    FastPathSituation(
        name: "git get, expiring within git's minute", arguments: ["git-credential", "get"], input: gitHTTPS,
        fast: false, prepare: prepared(fullEntry(expiresIn: 50, refreshToken: nil))),
    FastPathSituation(
        name: "git store", arguments: ["git-credential", "store"], input: gitHTTPS, fast: false,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, ID token", arguments: ["exec-credential"],
        environment: ["KUBERNETES_EXEC_INFO": plainExecInfo],
        fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, access token, no exec info", arguments: ["exec-credential", "--token-type=access"],
        fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, ID token expiring", arguments: ["exec-credential", "--min-validity", "120"],
        environment: ["KUBERNETES_EXEC_INFO": plainExecInfo], fast: false,
        prepare: prepared(fullEntry(idTokenExpiresIn: 100, refreshToken: nil))),
    FastPathSituation(
        name: "git get, setup's helper line with sign-in options",
        arguments: [
            "git-credential", "--profile", "default", "--issuer", "https://id.example.com", "--client-id", "cli",
            "--scope", "openid profile", "--par", "auto", "--timeout", "90", "get",
        ], input: gitHTTPS, fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, helper line without a client ID", arguments: ["git-credential", "--issuer=https://id", "get"],
        input: gitHTTPS, fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, helper line with a client secret",
        arguments: ["git-credential", "--preset", "github", "--client-id", "c", "--client-secret", "s", "get"],
        input: gitHTTPS, fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, helper line with --device and --no-browser",
        arguments: ["git-credential", "--device", "--no-browser", "get"], input: gitHTTPS, fast: false,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, kubeconfig args with sign-in options",
        arguments: ["exec-credential", "--config", "/nonexistent/client.json", "--device", "--dpop"],
        environment: ["KUBERNETES_EXEC_INFO": plainExecInfo], fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, sign-in options with a bad timeout",
        arguments: ["exec-credential", "--preset", "google", "--client-id", "c", "--timeout", "0"],
        environment: ["KUBERNETES_EXEC_INFO": plainExecInfo], fast: false, prepare: prepared(fullEntry())),
    // What the fast path does not trust it leaves to the full program, which decides — and
    // never hangs on.
    FastPathSituation(
        name: "token, the index is a FIFO", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            try FileManager.default.removeItem(atPath: sandbox.indexPath)
            #expect(mkfifo(sandbox.indexPath, 0o600) == 0)
        }),
    FastPathSituation(
        name: "token, the index is a link", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            try? FileManager.default.removeItem(atPath: sandbox.root + "/index.json")  // an earlier run's
            try FileManager.default.moveItem(atPath: sandbox.indexPath, toPath: sandbox.root + "/index.json")
            try FileManager.default.createSymbolicLink(
                atPath: sandbox.indexPath, withDestinationPath: sandbox.root + "/index.json")
        }),
    FastPathSituation(
        name: "token, the index writable by others", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            chmod(sandbox.indexPath, 0o666)
        }),
    FastPathSituation(
        name: "token, the index of another user", arguments: ["token"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            #expect(chown(sandbox.indexPath, 65534, 65534) == 0)
        }),
    FastPathSituation(
        name: "token, <state>/webauth writable by others", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            chmod(sandbox.stateHome + "/webauth", 0o777)
        }),
    FastPathSituation(
        name: "token, <state>/webauth of another user", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            #expect(chown(sandbox.stateHome + "/webauth", 65534, 65534) == 0)
        }),
    FastPathSituation(
        name: "token, <state>/webauth a link", arguments: ["token", "--store", "file"], fast: false,
        prepare: { sandbox in
            try prepared(fullEntry())(sandbox)
            try? FileManager.default.removeItem(atPath: sandbox.root + "/moved")  // an earlier run's
            try FileManager.default.moveItem(atPath: sandbox.stateHome + "/webauth", toPath: sandbox.root + "/moved")
            try FileManager.default.createSymbolicLink(
                atPath: sandbox.stateHome + "/webauth", withDestinationPath: sandbox.root + "/moved")
        }),
    FastPathSituation(
        name: "token, an escape sequence in the stored access token", arguments: ["token"], fast: false,
        prepare: prepared(fullEntry(accessToken: "fast-access-token\u{1B}]52;c;aGk=\u{07}"))),
    FastPathSituation(
        name: "git-credential get, a newline in the stored access token", arguments: ["git-credential", "get"],
        input: gitHTTPS, fast: false, prepare: prepared(fullEntry(accessToken: "fast-access-token\nusername=x"))),
    FastPathSituation(
        name: "git get, a host the profile is not set up for", arguments: ["git-credential", "get"],
        input: "protocol=https\nhost=elsewhere.example\n\n", fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, the recorded host with another port", arguments: ["git-credential", "get"],
        input: "protocol=https\nhost=git.example.com:8443\n\n", fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, the recorded host in capitals", arguments: ["git-credential", "get"],
        input: "protocol=https\nhost=GIT.Example.COM\n\n", fast: true, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, no host", arguments: ["git-credential", "get"], input: "protocol=https\n\n", fast: false,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "git get, a profile with no recorded hosts", arguments: ["git-credential", "get"], input: gitHTTPS,
        fast: false, prepare: prepared(fullEntry(), gitHosts: [])),
    FastPathSituation(
        name: "git get, --profile-for names the host",
        arguments: ["git-credential", "--profile-for", "git.example.com", "get"], input: gitHTTPS, fast: true,
        prepare: prepared(fullEntry(), gitHosts: [])),
    FastPathSituation(
        name: "git get, --profile-for names another host",
        arguments: ["git-credential", "--profile-for", "other.example", "get"], input: gitHTTPS, fast: false,
        prepare: prepared(fullEntry(), gitHosts: [])),
    FastPathSituation(
        name: "git get, --profile-for HOST=NAME",
        arguments: ["git-credential", "--profile", "unused", "--profile-for", "git.example.com=work", "get"],
        input: gitHTTPS, fast: true, prepare: prepared(fullEntry(), profile: "work", gitHosts: [])),
    FastPathSituation(
        name: "git get, a host recorded for another profile",
        arguments: ["git-credential", "--profile", "default", "get"], input: gitHTTPS, fast: false,
        prepare: { sandbox in
            try prepared(fullEntry(), gitHosts: [])(sandbox)
            let text =
                #"{"bindings":{"work":{"gitHosts":["git.example.com"]}},"profiles":{"default":"file"},"version":1}"#
            #expect(FileManager.default.createFile(atPath: sandbox.indexPath, contents: Data(text.utf8)))
        }),
    FastPathSituation(
        name: "exec-credential, the cluster --cluster-server allows",
        arguments: ["exec-credential", "--cluster-server", "https://k8s.example.com:6443"],
        environment: ["KUBERNETES_EXEC_INFO": execInfo(server: "https://K8S.example.com:6443/")], fast: true,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, a cluster --cluster-server does not allow",
        arguments: ["exec-credential", "--cluster-server", "https://k8s.example.com:6443"],
        environment: ["KUBERNETES_EXEC_INFO": execInfo(server: "https://k8s.example.com:7443")], fast: false,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, --cluster-server without cluster info",
        arguments: ["exec-credential", "--cluster-server", "https://k8s.example.com:6443"],
        environment: ["KUBERNETES_EXEC_INFO": plainExecInfo], fast: false, prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, cluster info and no --cluster-server", arguments: ["exec-credential"],
        environment: ["KUBERNETES_EXEC_INFO": execInfo(server: "https://anywhere.example")], fast: true,
        prepare: prepared(fullEntry())),
    FastPathSituation(
        name: "exec-credential, bad exec info", arguments: ["exec-credential"],
        environment: ["KUBERNETES_EXEC_INFO": #"{"kind":"Pod"}"#], fast: false, prepare: prepared(fullEntry())),
]

/// Runs `situation` in `sandbox` with the fast path on and off and checks that standard output,
/// standard error and exit status match, and that the fast path answers when it should.
func expectSameResults(_ situation: FastPathSituation, in sandbox: ProfileSandbox) async throws {
    /// Runs `webauth` in a freshly prepared sandbox, with the fast path on or off.
    func run(fastPath: Bool) async throws -> (status: Int32, stdout: String, stderr: String) {
        try? FileManager.default.removeItem(atPath: sandbox.stateHome)
        try await situation.prepare(sandbox)
        var environment = sandbox.environment.merging(situation.environment) { $1 }
        environment[FastPath.switchVariable] = fastPath ? nil : "0"
        let process = try CLIProcess(
            situation.arguments, environment: environment, keepStandardInputOpen: situation.input != nil)
        if let input = situation.input { process.finishInput(Array(input.utf8)) }
        let status = try await process.waitForExit()
        return (status, process.standardOutput, process.standardError)
    }

    // Whether the fast path answers, decided in this process on the same files and input.
    try? FileManager.default.removeItem(atPath: sandbox.stateHome)
    try await situation.prepare(sandbox)
    let environment = sandbox.environment.merging(situation.environment) { $1 }
    let answer = FastPath.answer(
        situation.arguments, environment: environment, now: Date(),
        standardInput: { situation.input.map { Array($0.utf8) } })
    #expect((answer != nil) == situation.fast, "\(situation.name): fast path answered: \(answer != nil)")

    let fast = try await run(fastPath: true)
    let full = try await run(fastPath: false)
    #expect(fast.status == full.status, "\(situation.name)")
    #expect(fast.stdout == full.stdout, "\(situation.name)")
    #expect(fast.stderr == full.stderr, "\(situation.name)")
    if let answer { #expect(fast.stdout == String(decoding: answer, as: UTF8.self), "\(situation.name)") }
    #expect(!fast.stderr.contains("fast-access-token") && !fast.stderr.contains("fast-refresh-token"))
}

@Suite("Fast path: the same results as the full program")
struct FastPathEquivalenceTests {
    @Test("Standard output, standard error and exit status match, fast or full", arguments: fastPathSituations)
    func sameResults(situation: FastPathSituation) async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        try await expectSameResults(situation, in: sandbox)
    }

    @Test("A <state>/webauth others can write is refused by the full program, naming it and the fix")
    func untrustedStateDirectory() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let directory = sandbox.stateHome + "/webauth"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o777)
        for arguments in [["token"], ["token", "--store", "file"]] {
            let result = try await sandbox.run(arguments, timeout: .seconds(60))
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(directory) && result.stderr.contains("chmod go-w"), "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory + "/tokens"))
    }

    @Test("git-credential setup names the program people run, not the full program behind it")
    func setupNamesWebauth() async throws {
        let sandbox = try ProfileSandbox()
        defer { sandbox.remove() }
        let file = sandbox.root + "/gitconfig"
        let result = try await sandbox.run(["git-credential", "setup", "git.example.com", "--file", file])
        #expect(result.status == 0, "\(result.stderr)")
        let written = try String(contentsOfFile: file, encoding: .utf8)
        #expect(written.contains("/webauth' git-credential"))
        #expect(!written.contains(FullProgram.executableName))
    }
}
