// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The provider's pure parts, without a server: token bookkeeping, request checks, client
/// authentication, the flow's next step.
@Suite("Embedded provider: pure logic")
struct ProviderLogicTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private let grant = TokenGrant(
        clientID: "app", subject: "alice", scopes: ["openid"],
        authenticatedAt: Date(timeIntervalSince1970: 1_700_000_000))
    private func ledger(rotation: Bool = true, capacity: Int = 100) -> TokenLedger {
        TokenLedger(
            policy: .init(
                accessTokenLifetime: .seconds(60), refreshTokenLifetime: .seconds(600), rotatesRefreshTokens: rotation),
            capacity: capacity)
    }

    @Test func refreshRotationAndReuseDetection() throws {
        var ledger = ledger()
        let first = ledger.issue(grant, accessToken: "a1", refreshToken: "r1", now: now)
        #expect(ledger.grant(forAccessToken: "a1", now: now) == grant)

        let second = ledger.refresh("r1", clientID: "app", newAccessToken: "a2", newRefreshToken: "r2", now: now)
        #expect(try second.get().refreshToken == "r2")
        #expect(try second.get().family == first.family)
        #expect(!ledger.isLive(refreshToken: "r1", now: now))
        #expect(ledger.isLive(refreshToken: "r2", now: now))

        // r1 again: reuse; the family goes, r2 and every access token with it.
        let reuse = ledger.refresh("r1", clientID: "app", newAccessToken: "a3", newRefreshToken: "r3", now: now)
        #expect(reuse.failure == .reused)
        #expect(!ledger.isLive(refreshToken: "r2", now: now))
        #expect(ledger.grant(forAccessToken: "a2", now: now) == nil)
        #expect(ledger.grant(forAccessToken: "a1", now: now) == nil)
        #expect(ledger.familyCount == 0)
        #expect(
            ledger.refresh("r2", clientID: "app", newAccessToken: "a4", newRefreshToken: "r4", now: now).failure
                == .unknown)
    }

    @Test func refreshIsBoundToTheClientAndExpires() {
        var ledger = ledger()
        _ = ledger.issue(grant, accessToken: "a1", refreshToken: "r1", now: now)
        #expect(
            ledger.refresh("r1", clientID: "other", newAccessToken: "x", newRefreshToken: "y", now: now).failure
                == .otherClient)
        // The other client's attempt did not retire it.
        #expect(ledger.isLive(refreshToken: "r1", now: now))
        #expect(ledger.grant(forAccessToken: "a1", now: now.addingTimeInterval(61)) == nil)
        let late = now.addingTimeInterval(601)
        #expect(
            ledger.refresh("r1", clientID: "app", newAccessToken: "x", newRefreshToken: "y", now: late).failure
                == .expired)
    }

    @Test func withoutRotationTheRefreshTokenIsKept() throws {
        var ledger = ledger(rotation: false)
        _ = ledger.issue(grant, accessToken: "a1", refreshToken: "r1", now: now)
        for index in 2...4 {
            let issued = try ledger.refresh(
                "r1", clientID: "app", newAccessToken: "a\(index)", newRefreshToken: "unused", now: now
            ).get()
            #expect(issued.refreshToken == nil)
        }
        #expect(ledger.isLive(refreshToken: "r1", now: now))
        #expect(!ledger.isLive(refreshToken: "unused", now: now))
    }

    @Test func revocationFollowsRFC7009() {
        var ledger = ledger()
        _ = ledger.issue(grant, accessToken: "a1", refreshToken: "r1", now: now)
        #expect(ledger.revoke("unknown", hint: nil, clientID: "app") == .nothing)
        #expect(ledger.revoke("r1", hint: nil, clientID: "other") == .nothing)
        #expect(ledger.revoke("a1", hint: "refresh_token", clientID: "app") == .accessToken)
        #expect(ledger.isLive(refreshToken: "r1", now: now))
        #expect(ledger.revoke("r1", hint: "access_token", clientID: "app") == .family)
        #expect(!ledger.isLive(refreshToken: "r1", now: now))
    }

    @Test func theLedgerIsBounded() {
        var ledger = ledger(capacity: 3)
        for index in 0..<10 {
            _ = ledger.issue(grant, accessToken: "a\(index)", refreshToken: "r\(index)", now: now)
        }
        #expect(ledger.familyCount == 3)
        #expect(ledger.isLive(refreshToken: "r9", now: now))
        #expect(!ledger.isLive(refreshToken: "r0", now: now))
    }

    @Test func boundedTablesDropExpiredThenOldest() {
        var table = BoundedTable<Int>(capacity: 3)
        table.insert(1, for: "a", expiresAt: now.addingTimeInterval(10), now: now)
        table.insert(2, for: "b", expiresAt: now.addingTimeInterval(1), now: now)
        table.insert(3, for: "c", expiresAt: now.addingTimeInterval(10), now: now)
        let later = now.addingTimeInterval(5)
        table.insert(4, for: "d", expiresAt: later.addingTimeInterval(10), now: later)
        #expect(table.value(for: "a", now: later) == 1)  // "b" had expired and went first
        #expect(table.entry(for: "b") == nil)
        table.insert(5, for: "e", expiresAt: later.addingTimeInterval(10), now: later)
        #expect(table.entry(for: "a") == nil)  // then the oldest
        #expect(table.count == 3)
    }

    @Test func clientAuthenticationFollowsRFC6749() {
        let clients = [
            EmbeddedProvider.Client.demo,
            EmbeddedProvider.Client(
                id: "svc:1", secret: "p%ss w:rd", redirectURIs: [URL(string: "https://example.com/cb")!]),
        ]
        func basic(_ id: String, _ secret: String) -> String {
            "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString()
        }
        func outcome(_ header: String?, _ form: [(String, String)]) -> ClientAuthentication.Outcome {
            ClientAuthentication.authenticate(
                authorization: header, form: form.map { (name: $0.0, value: $0.1) }, clients: clients)
        }
        // RFC 6749 §2.3.1: form-encoded before Base64.
        #expect(outcome(basic("svc%3A1", "p%25ss+w%3Ard"), []) == .authenticated(clients[1], .clientSecretBasic))
        #expect(
            outcome(nil, [("client_id", "svc:1"), ("client_secret", "p%ss w:rd")])
                == .authenticated(clients[1], .clientSecretPost))
        #expect(outcome(nil, [("client_id", "webauth-demo")]) == .authenticated(clients[0], .none))

        let refusals: [(String?, [(String, String)], String, Int, Bool)] = [
            (basic("svc%3A1", "wrong"), [], "invalid_client", 401, true),
            (nil, [("client_id", "svc:1")], "invalid_client", 401, false),
            (nil, [("client_id", "svc:1"), ("client_secret", "wrong")], "invalid_client", 401, false),
            (nil, [("client_id", "webauth-demo"), ("client_secret", "x")], "invalid_client", 401, false),
            (nil, [], "invalid_client", 401, false),
            ("Basic !!!", [], "invalid_client", 401, true),
            (basic("svc%3A1", "p%25ss+w%3Ard"), [("client_secret", "p%ss w:rd")], "invalid_request", 400, false),
            (basic("svc%3A1", "p%25ss+w%3Ard"), [("client_id", "webauth-demo")], "invalid_request", 400, false),
            (nil, [("client_id", "a"), ("client_id", "b")], "invalid_request", 400, false),
        ]
        for (header, form, code, status, challenge) in refusals {
            guard case .failed(let error, let challenged) = outcome(header, form) else {
                Issue.record("accepted \(form.map(\.0))")
                continue
            }
            #expect(error.code == code)
            #expect(error.status == status)
            #expect(challenged == challenge)
        }
    }

    @Test func redirectURIsMatchExactlyOrAsLoopbackOnAnyPort() {
        let registered = [
            URL(string: "http://127.0.0.1/callback")!, URL(string: "http://[::1]/cb?x=1")!,
            URL(string: "com.example.app:/oauth")!, URL(string: "https://example.com/cb")!,
        ]
        for accepted in [
            "http://127.0.0.1:1234/callback", "http://127.0.0.1/callback", "http://[::1]:80/cb?x=1",
            "com.example.app:/oauth", "https://example.com/cb",
        ] {
            #expect(RedirectURIRule.isRegistered(accepted, in: registered), "\(accepted)")
        }
        for refused in [
            "http://127.0.0.1:1234/callback/", "http://127.0.0.1:1234/Callback", "http://localhost:1234/callback",
            "https://127.0.0.1:1234/callback", "http://[::1]:80/cb", "http://127.0.0.1:1234/callback#x",
            "https://example.com:444/cb", "https://example.com/cb/more", "http://user@127.0.0.1:1/callback",
            "com.example.app:/oauth2", "",
        ] {
            #expect(!RedirectURIRule.isRegistered(refused, in: registered), "\(refused)")
        }
    }

    @Test func theFlowsNextStepHonoursPrompt() {
        let signIn = SignIn(subject: "alice", authenticatedAt: now, expiresAt: now.addingTimeInterval(60))
        #expect(AuthorizationFlow.start(prompt: [], signIn: nil, requiresConsent: true) == .login)
        #expect(AuthorizationFlow.start(prompt: [], signIn: signIn, requiresConsent: true) == .consent(signIn))
        #expect(AuthorizationFlow.start(prompt: [], signIn: signIn, requiresConsent: false) == .complete(signIn))
        #expect(AuthorizationFlow.start(prompt: ["login"], signIn: signIn, requiresConsent: false) == .login)
        #expect(
            AuthorizationFlow.start(prompt: ["consent"], signIn: signIn, requiresConsent: false) == .consent(signIn))
        guard
            case .fail(let loginRequired) = AuthorizationFlow.start(
                prompt: ["none"], signIn: nil, requiresConsent: false),
            case .fail(let consentRequired) = AuthorizationFlow.start(
                prompt: ["none"], signIn: signIn, requiresConsent: true)
        else {
            Issue.record("prompt=none did not fail")
            return
        }
        #expect(loginRequired.code == "login_required")
        #expect(consentRequired.code == "consent_required")
        #expect(AuthorizationFlow.start(prompt: ["none"], signIn: signIn, requiresConsent: false) == .complete(signIn))
    }

    @Test func secretsHelpers() {
        // RFC 7636 Appendix B.
        #expect(
            ProviderSecrets.s256Challenge(for: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
                == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(ProviderSecrets.constantTimeEquals("abc", "abc"))
        #expect(!ProviderSecrets.constantTimeEquals("abc", "abd"))
        #expect(!ProviderSecrets.constantTimeEquals("abc", "abcd"))
        let tokens = Set((0..<100).map { _ in ProviderSecrets.randomToken() })
        #expect(tokens.count == 100)
        #expect(tokens.allSatisfy { $0.count == 43 })
        #expect(ProviderSecrets.normalizedUserCode(" wdjb mjht ") == "WDJB-MJHT")
        #expect(ProviderSecrets.normalizedUserCode("WDJB-MJH") == nil)
        #expect(ProviderSecrets.normalizedUserCode("AEIO-UAEI") == nil)
        #expect(ProviderSecrets.normalizedUserCode(ProviderSecrets.userCode()) != nil)
    }

    @Test func configurationProblemsAreTypedErrors() async {
        var duplicate = EmbeddedProvider.Configuration()
        duplicate.users.append(.demo)
        var noRedirect = EmbeddedProvider.Configuration()
        noRedirect.clients = [.init(id: "x", redirectURIs: [])]
        var badInterval = EmbeddedProvider.Configuration()
        badInterval.devicePollingInterval = .milliseconds(1500)
        for configuration in [duplicate, noRedirect, badInterval] {
            do {
                let provider = try await EmbeddedProvider.start(configuration)
                await provider.shutdown()
                Issue.record("an unusable configuration started")
            } catch {
                #expect(error.code == .invalidConfiguration)
            }
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
