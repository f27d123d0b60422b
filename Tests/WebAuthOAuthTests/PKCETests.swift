// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthOAuth

@Suite("PKCE, state and nonce")
struct PKCETests {
    @Test func reproducesRFC7636AppendixB() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(pkce.method == "S256")
    }

    @Test func freshVerifiersAre43UnreservedCharactersFrom256RandomBits() {
        let verifiers = (0..<200).map { _ in PKCE().verifier }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for verifier in verifiers {
            #expect(verifier.count == 43)
            #expect(verifier.allSatisfy(allowed.contains))
        }
        #expect(Set(verifiers).count == verifiers.count)
    }

    @Test(arguments: [
        String(repeating: "a", count: 42), String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+",
        String(repeating: "a", count: 50) + " ",
    ])
    func rejectsVerifiersOutsideRFC7636(_ verifier: String) {
        #expect(throws: OAuthError.self) { try PKCE(verifier: verifier) }
    }

    @Test func descriptionNeverShowsTheVerifier() {
        let pkce = PKCE()
        #expect(!pkce.description.contains(pkce.verifier))
        #expect(!"\(pkce)".contains(pkce.verifier))
    }

    @Test func eachRequestHasItsOwnStateNonceAndVerifier() {
        let configuration = ClientConfiguration(
            issuer: URL(string: "https://issuer.example"), clientID: "c", scopes: ["openid"])
        let first = AuthorizationRequest(configuration: configuration)
        let second = AuthorizationRequest(configuration: configuration)
        #expect(first.state != second.state)
        #expect(first.nonce != nil && first.nonce != second.nonce)
        #expect(first.pkce?.verifier != second.pkce?.verifier)
        #expect(first.state.count == 43)
    }

    @Test func theAuthorizationURLCarriesS256AndNeverTheVerifier() throws {
        let pkce = PKCE()
        let request = AuthorizationRequest(state: "st", nonce: "nn", pkce: pkce, scopes: ["openid", "email"])
        let url = request.url(
            authorizationEndpoint: URL(string: "https://issuer.example/authorize?tenant=a%20b&org=x%26y")!,
            clientID: "my app", redirectURI: URL(string: "http://127.0.0.1:5000/callback")!,
            additional: [
                "prompt": "consent", "state": "attacker", "code_challenge_method": "plain", "response_mode": "fragment",
                "request_uri": "urn:attacker",
            ])
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        func value(_ name: String) -> [String] { items.filter { $0.name == name }.compactMap(\.value) }
        #expect(value("tenant") == ["a b"])
        #expect(value("org") == ["x&y"], "the endpoint's own query keeps its encoding")
        #expect(value("response_mode").isEmpty && value("request_uri").isEmpty)
        #expect(value("response_type") == ["code"])
        #expect(value("client_id") == ["my app"])
        #expect(value("redirect_uri") == ["http://127.0.0.1:5000/callback"])
        #expect(value("scope") == ["openid email"])
        #expect(value("state") == ["st"])
        #expect(value("nonce") == ["nn"])
        #expect(value("code_challenge") == [pkce.challenge])
        #expect(value("code_challenge_method") == ["S256"])
        #expect(value("prompt") == ["consent"])
        #expect(!url.absoluteString.contains(pkce.verifier))
    }
}
