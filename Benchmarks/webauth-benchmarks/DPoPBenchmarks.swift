// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthEmbeddedProvider
import WebAuthOAuth
import WebAuthSignIn
import WebAuthTestSupport

/// What DPoP (RFC 9449) and pushed authorization requests (RFC 9126) add: the cost of one proof,
/// of a key, of a UserInfo request with a proof against one without, and of a whole sign-in
/// (scripted user agent, embedded provider on loopback) with PAR and DPoP against one without.
enum DPoPBenchmarks {
    static func printFigures(header: String) async throws {
        let key = DPoPKey()
        let url = URL(string: "https://api.example.com/v1/items?page=2")!
        var proofs = Figures()
        var keys = Figures()
        for _ in 0..<2000 {
            let started = ContinuousClock.now
            _ = DPoPProof(method: "GET", url: url, accessToken: "an-access-token-of-forty-three-characters--").signed(
                with: key)
            proofs.add(ContinuousClock.now - started)
        }
        for _ in 0..<200 {
            let started = ContinuousClock.now
            _ = DPoPKey()
            keys.add(ContinuousClock.now - started)
        }
        print("DPoP and PAR (milliseconds)")
        print(header)
        print(proofs.line("one DPoP proof (ES256), made and signed"))
        print(keys.line("one DPoP key pair (P-256)"))

        var configuration = EmbeddedProvider.Configuration(requiresConsent: false)
        configuration.requiresDPoPNonce = true
        try await EmbeddedProvider.withProvider(configuration) { provider in
            func client(dpop: Bool) throws -> OAuthClient {
                try OAuthClient(
                    configuration: ClientConfiguration(
                        issuer: provider.issuer, clientID: "webauth-demo", scopes: ["openid", "profile"],
                        usePushedAuthorization: dpop ? .always : .never, dpop: dpop ? .persistent : nil))
            }
            for dpop in [false, true] {
                let client = try client(dpop: dpop)
                _ = try await client.metadata()
                var signIns = Figures()
                var userInfos = Figures()
                var tokens: TokenSet?
                for _ in 0..<20 {
                    let started = ContinuousClock.now
                    tokens = try await client.signIn(environment: .standard(browser: ScriptedUserAgent()))
                    signIns.add(ContinuousClock.now - started)
                }
                for _ in 0..<200 {
                    let started = ContinuousClock.now
                    _ = try await client.userInfo(for: tokens!)
                    userInfos.add(ContinuousClock.now - started)
                }
                let label = dpop ? "with PAR + DPoP (nonces)" : "Bearer, no PAR"
                print(signIns.line("sign-in, \(label)"))
                print(userInfos.line("UserInfo request, \(label)"))
            }
        }
        print("")
    }
}
