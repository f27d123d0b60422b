// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuth
import WebAuthCore
import WebAuthSignIn

@testable import WebAuthOAuth

/// Signing out of the provider (OpenID Connect RP-Initiated Logout 1.0): the end-session URL
/// and the check of the redirect back, as pure functions; the client's refusals before any
/// browser opens.
@Suite("Ending the provider's session")
struct EndSessionRequestTests {
    private static let endpoint = URL(string: "https://op.example/logout?tenant=a%20b")!
    private static let redirect = URL(string: "http://127.0.0.1:5417/callback")!

    private func request(state: String = "st4te") -> EndSessionRequest {
        EndSessionRequest(
            endSessionEndpoint: Self.endpoint, idTokenHint: "header.payload.signature", clientID: "my cli",
            state: state, callback: .loopback(path: "/callback"))
    }

    private func parameters(_ query: String) -> CallbackParameters {
        CallbackParameters(URL(string: "http://127.0.0.1:5417/callback" + query)!)
    }

    @Test func theURLCarriesTheHintTheClientTheRedirectAndTheStateAfterTheEndpointsOwnQuery() throws {
        let url = request().url(postLogoutRedirectURI: Self.redirect)
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.host == "op.example")
        #expect(components.path == "/logout")
        #expect(components.percentEncodedQuery?.hasPrefix("tenant=a%20b&") == true)
        let items = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        #expect(items.map(\.0) == ["tenant", "id_token_hint", "client_id", "post_logout_redirect_uri", "state"])
        let values = Dictionary(items, uniquingKeysWith: { first, _ in first })
        #expect(values["id_token_hint"] == "header.payload.signature")
        #expect(values["client_id"] == "my cli")
        #expect(values["post_logout_redirect_uri"] == "http://127.0.0.1:5417/callback")
        #expect(values["state"] == "st4te")
    }

    @Test func eachRequestHasAFreshUnguessableState() {
        let states = (0..<20).map { _ in
            EndSessionRequest(
                endSessionEndpoint: Self.endpoint, idTokenHint: "t", clientID: "c", callback: .loopback()
            ).state
        }
        #expect(Set(states).count == 20)
        #expect(states.allSatisfy { $0.count == 43 })
    }

    @Test func theRedirectWithOurStateIsAccepted() throws {
        try request().validate(parameters("?state=st4te"))
        #expect(request().endsWait(parameters("?state=st4te")))
    }

    @Test func aRedirectWithoutStateEndsTheWaitWithAStateMismatch() {
        #expect(request().endsWait(parameters("")))
        #expect(throws: OAuthError.self) { try request().validate(parameters("")) }
        do {
            try request().validate(parameters(""))
        } catch {
            #expect(error.code == .stateMismatch)
            #expect(error.message.contains("no state"))
        }
    }

    @Test func aRedirectWithAnotherStateIsIgnoredByTheSessionAndRefusedWhenChecked() {
        #expect(!request().endsWait(parameters("?state=forged")))
        do {
            try request().validate(parameters("?state=forged"))
            Issue.record("a forged state was accepted")
        } catch {
            #expect(error.code == .stateMismatch)
            #expect(!error.message.contains("forged"))
        }
    }

    @Test func anEmptyExpectedStateMatchesNothing() {
        #expect(!request(state: "").endsWait(parameters("?state=")))
        #expect(throws: OAuthError.self) { try request(state: "").validate(parameters("?state=")) }
    }

    @Test func anErrorWithOurStateIsTheProvidersRefusal() {
        do {
            try request().validate(parameters("?error=access_denied&error_description=no%1B%5B2J&state=st4te"))
            Issue.record("an error redirect was accepted")
        } catch {
            #expect(error.code == .server)
            #expect(error.serverError?.code == .accessDenied)
            #expect(error.serverError?.endpoint == .endSession)
            #expect(!error.message.contains("\u{1B}"))
        }
    }

    @Test func anErrorWithAnotherStateIsAStateMismatchNotTheProvidersWord() {
        do {
            try request().validate(parameters("?error=access_denied&state=forged"))
            Issue.record("a forged error redirect was accepted")
        } catch {
            #expect(error.code == .stateMismatch)
        }
    }

    @Test func theDescriptionShowsNeitherTheIDTokenNorTheState() {
        let description = String(describing: request())
        #expect(!description.contains("header.payload.signature"))
        #expect(!description.contains("st4te"))
        #expect(description.contains("op.example"))
    }

    // MARK: - The client

    private func client(_ transport: ScriptedTransport? = nil, issuer: Bool = false) throws -> OAuthClient {
        if issuer, let transport {
            return try OAuthClient(
                configuration: ClientConfiguration(
                    issuer: URL(string: "https://op.example")!, clientID: "cli", scopes: ["openid"]),
                transport: transport)
        }
        return try OAuthClient(
            configuration: ClientConfiguration(
                endpoints: .init(
                    authorization: URL(string: "https://op.example/authorize"),
                    token: URL(string: "https://op.example/token")),
                clientID: "cli", scopes: ["openid"]))
    }

    private static func discovery(endSession: String?) -> ScriptedTransport {
        ScriptedTransport { _ in
            let member = endSession.map { #","end_session_endpoint":"\#($0)""# } ?? ""
            return .json(
                200,
                #"{"issuer":"https://op.example","authorization_endpoint":"https://op.example/authorize","#
                    + #""token_endpoint":"https://op.example/token","jwks_uri":"https://op.example/jwks""# + member
                    + "}")
        }
    }

    @Test func discoveryReadsTheEndSessionEndpoint() async throws {
        let client = try client(Self.discovery(endSession: "https://op.example/logout"), issuer: true)
        #expect(try await client.metadata().endSessionEndpoint == URL(string: "https://op.example/logout"))
        let prepared = try await client.prepareEndSession(idTokenHint: "t")
        #expect(prepared.endSessionEndpoint == URL(string: "https://op.example/logout"))
        #expect(prepared.clientID == "cli")
        #expect(prepared.callback == (try Callback(redirectURI: ClientConfiguration.defaultRedirectURI)))
    }

    @Test func aProviderWithoutAnEndSessionEndpointIsATypedError() async throws {
        for client in [try client(), try client(Self.discovery(endSession: nil), issuer: true)] {
            do {
                _ = try await client.prepareEndSession(idTokenHint: "t")
                Issue.record("no endpoint, yet prepared")
            } catch {
                #expect(error.code == .endpointUnavailable)
                #expect(error.message.contains("end-session"))
            }
        }
    }

    @Test func anInsecureEndSessionEndpointIsRefusedButDoesNotSpoilDiscovery() async throws {
        let client = try client(Self.discovery(endSession: "http://op.example/logout"), issuer: true)
        #expect(try await client.metadata().tokenEndpoint != nil)
        do {
            _ = try await client.prepareEndSession(idTokenHint: "t")
            Issue.record("an http end-session endpoint was used")
        } catch {
            #expect(error.code == .insecureEndpoint)
        }
    }

    @Test func tokensWithoutAnIDTokenCannotEndTheSession() async throws {
        let client = try client()
        do throws(OAuthError) {
            try await client.endSession(for: TokenSet(accessToken: "at"))
            Issue.record("ended a session without an ID token")
        } catch {
            #expect(error.code == .noIDToken)
        }
    }
}
