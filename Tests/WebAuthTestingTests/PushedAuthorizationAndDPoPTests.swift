// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import Testing
import WebAuth
import WebAuthOAuth
import WebAuthSignIn

@testable import WebAuthEmbeddedProvider
@testable import WebAuthTesting

/// The embedded provider as the strict RFC 9126 / RFC 9449 reference, and the client against
/// it over real loopback HTTP: sign-in with PAR required and DPoP-bound tokens (with the nonce
/// dance), refresh, UserInfo and revocation; then each hostile case with its outcome.
@Suite("PAR and DPoP against the embedded provider")
struct PushedAuthorizationAndDPoPTests {
    static func configuration(
        requiresPush: Bool = true, nonce: Bool = true,
        _ change: (inout EmbeddedProvider.Configuration) -> Void = { _ in }
    ) -> EmbeddedProvider.Configuration {
        var configuration = EmbeddedProvider.testConfiguration
        configuration.requiresPushedAuthorizationRequests = requiresPush
        configuration.requiresDPoPNonce = nonce
        change(&configuration)
        return configuration
    }

    static func client(
        _ provider: EmbeddedProvider, push: PushedAuthorizationUse = .automatic, dpop: DPoPKey.Storage? = .persistent
    ) throws -> OAuthClient {
        try OAuthClient(
            configuration: ClientConfiguration(
                issuer: provider.issuer, clientID: "webauth-demo", scopes: ["openid", "profile", "offline_access"],
                usePushedAuthorization: push, dpop: dpop))
    }

    /// POSTs a form to the provider's token endpoint with the given `DPoP` fields.
    static func postToken(
        _ provider: EmbeddedProvider, form: [(String, String)], proofs: [String]
    ) async throws -> RawHTTPClient.Response {
        var fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        fields += proofs.map { HTTPField(name: HTTPField.Name("DPoP")!, value: $0) }
        return try await RawHTTPClient.request(
            method: "POST", url: provider.issuer.appending(path: "token"), headerFields: fields,
            body: Array(FormCoding.encode(form).utf8))
    }

    @Test func aPushedSignInGetsDPoPBoundTokensThatRefreshAskUserInfoAndRevoke() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration()) { provider in
            let client = try Self.client(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            #expect(tokens.isDPoPBound)
            #expect(tokens.dpopKey == client.dpopKey)
            #expect(provider.requests(to: .pushedAuthorization).map(\.status) == [201])
            // The nonce dance: the first token request is asked for the nonce, the retry passes.
            #expect(provider.requests(to: .token).map(\.status) == [400, 200])
            #expect(provider.requests(to: .token).first?.error == "use_dpop_nonce")

            let refreshed = try await client.refresh(tokens)
            #expect(refreshed.isDPoPBound && refreshed.accessToken != tokens.accessToken)
            let info = try await client.userInfo(for: refreshed)
            #expect(info.subject == EmbeddedProvider.User.demo.subject)
            try await client.revoke(refreshed)
            #expect(!provider.isActive(refreshToken: try #require(refreshed.refreshToken)))
            // Every proof was accepted once: no jti was reused.
            #expect(!provider.requests.contains { $0.error == "invalid_dpop_proof" })
        }
    }

    @Test func aBoundTokenSentAsBearerOrWithAnotherKeyIsRefused() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration(requiresPush: false, nonce: false)) { provider in
            let client = try Self.client(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let asBearer = try await RawHTTPClient.request(
                method: "GET", url: provider.issuer.appending(path: "userinfo"),
                headerFields: [.authorization: "Bearer \(tokens.accessToken)"])
            #expect(asBearer.status == 401)
            var stolen = tokens
            stolen.dpopKey = DPoPKey()
            let error = await oauthError { try await client.userInfo(for: stolen) }
            #expect(error?.code == .unexpectedStatus || error?.serverError?.code == "invalid_token")
            let refreshError = await oauthError { try await client.refresh(stolen) }
            #expect(refreshError?.serverError?.code == .invalidDPoPProof)
        }
    }

    @Test func aReplayedProofIsRefused() async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration(requiresPush: false, nonce: false)) { provider in
            let client = try Self.client(provider)
            let tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
            let key = try #require(tokens.dpopKey)
            let proof = DPoPProof(method: "POST", url: provider.issuer.appending(path: "token")).signed(with: key)
            let form = [
                ("grant_type", "refresh_token"), ("refresh_token", try #require(tokens.refreshToken)),
                ("client_id", "webauth-demo"),
            ]
            let first = try await Self.postToken(provider, form: form, proofs: [proof])
            #expect(first.status == 200)
            #expect(first.body.contains(#""token_type":"DPoP""#))
            let replay = try await Self.postToken(provider, form: form, proofs: [proof])
            #expect(replay.status == 400)
            #expect(replay.body.contains("invalid_dpop_proof"))
        }
    }

    @Test(arguments: [("GET", "token"), ("POST", "userinfo"), ("POST", "token?x=1")])
    func aProofForAnotherMethodOrURIIsRefused(method: String, path: String) async throws {
        try await EmbeddedProvider.withTestProvider(Self.configuration(requiresPush: false, nonce: false)) { provider in
            let key = DPoPKey()
            let url = try #require(URL(string: provider.issuer.absoluteString + "/" + path))
            let proof = DPoPProof(method: method, url: url).signed(with: key)
            let answer = try await Self.postToken(
                provider,
                form: [("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", "webauth-demo")],
                proofs: [proof])
            // A query is not part of htu, so that proof is valid, and only the refresh token is wrong.
            if path.contains("?") {
                #expect(answer.body.contains("invalid_grant"))
            } else {
                #expect(answer.status == 400)
                #expect(answer.body.contains("invalid_dpop_proof"))
            }
            let twoProofs = try await Self.postToken(
                provider,
                form: [("grant_type", "refresh_token"), ("refresh_token", "x"), ("client_id", "webauth-demo")],
                proofs: [proof, proof])
            #expect(twoProofs.body.contains("invalid_dpop_proof"))
        }
    }

    @Test func anExpiredRequestURIIsRefusedAndAClientPushesAgain() async throws {
        let time = SteppedClock()
        let configuration = Self.configuration(nonce: false) {
            $0.pushedRequestLifetime = .seconds(1)
            $0.clock = time.clock
        }
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            // Opened after its lifetime, a request_uri shows an error page; it is never redirected.
            let push = try await RawHTTPClient.request(
                method: "POST", url: provider.issuer.appending(path: "par"),
                headerFields: [.contentType: "application/x-www-form-urlencoded"],
                body: Array(
                    FormCoding.encode([
                        ("client_id", "webauth-demo"), ("response_type", "code"),
                        ("redirect_uri", "http://127.0.0.1:9/callback"), ("state", "s"),
                        ("code_challenge", "E9Melhoa2OwvFrEMTJguCQaoeCyIoMExGyRlw4RpvI8"),
                        ("code_challenge_method", "S256"),
                    ]).utf8))
            #expect(push.status == 201)
            let pushed = try JSONSerialization.jsonObject(with: Data(push.body.utf8)) as? [String: Any]
            let requestURI = try #require(pushed?["request_uri"] as? String)
            #expect(pushed?["expires_in"] as? Int == 1)
            time.advance(by: .milliseconds(1500))
            var components = URLComponents(
                url: provider.issuer.appending(path: "authorize"), resolvingAgainstBaseURL: false)!
            components.queryItems = [
                .init(name: "client_id", value: "webauth-demo"), .init(name: "request_uri", value: requestURI),
            ]
            let opened = try await RawHTTPClient.request(method: "GET", url: try #require(components.url))
            #expect(opened.status == 400)
            #expect(opened.header("Location") == nil)
        }
        // A provider whose request_uri is dead on arrival: the client pushes twice, then says why.
        try await EmbeddedProvider.withTestProvider(
            Self.configuration(nonce: false) { $0.pushedRequestLifetime = .zero }
        ) {
            provider in
            let error = await oauthError {
                try await Self.client(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .pushedRequestExpired)
            #expect(provider.requests(to: .pushedAuthorization).count == 2)
            #expect(provider.requests(to: .authorization).isEmpty)
        }
    }

    @Test func aDowngradeToBearerIsRefused() async throws {
        let configuration = Self.configuration(requiresPush: false, nonce: false) { $0.downgradesDPoPToBearer = true }
        try await EmbeddedProvider.withTestProvider(configuration) { provider in
            let error = await oauthError {
                try await Self.client(provider).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .dpopDowngraded)
            #expect(provider.requests(to: .userInfo).isEmpty)
        }
    }

    @Test func pushRequiredButSkippedIsRefusedByTheProviderAndBeforehandByTheClient() async throws {
        let hidden = Self.configuration(nonce: false) { $0.advertisesPushRequirement = false }
        try await EmbeddedProvider.withTestProvider(hidden) { provider in
            let error = await oauthError {
                try await Self.client(provider, dpop: nil).signIn(environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .server)
            #expect(error?.serverError?.code == .invalidRequest)
            #expect(provider.requests(to: .token).isEmpty)
        }
        try await EmbeddedProvider.withTestProvider(Self.configuration(nonce: false)) { provider in
            let error = await oauthError {
                try await Self.client(provider, push: .never).signIn(
                    environment: .standard(browser: ScriptedUserAgent()))
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(provider.requests(to: .authorization).isEmpty)
        }
    }
}
