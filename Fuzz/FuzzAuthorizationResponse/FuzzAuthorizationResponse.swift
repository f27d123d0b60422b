// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthCore
import WebAuthOAuth

/// Callback matching and the authorization-response checks, fed the URL a browser hands back.
///
/// Input: a URL as text. Each kind of callback matches it, then the response validator reads
/// its query (code flow) and its fragment (implicit flow). Checks: a response the validator
/// accepts carries our `state` and a code (or an access token in the fragment), an access
/// token in the query is never accepted, and no error carries a control character.
@main
enum FuzzAuthorizationResponse {
    static let callbacks: [Callback] = [
        .customScheme("com.example.app"), .https(host: "app.example.com", path: "/oauth/callback"),
        .loopback(path: "/callback").boundToPort(49_152), .loopback(path: "/cb", host: .ipv6).boundToPort(8_080),
    ]
    static let state = "af0ifjsldkj"

    static func main() {
        FuzzHarness.run { bytes in
            guard let url = URL(string: String(decoding: bytes, as: UTF8.self)) else { return }
            for callback in callbacks { _ = callback.matchesURL(url) }
            for responseType in [ResponseType.code, .token] {
                for issuerRequired in [false, true] {
                    let validator = AuthorizationResponseValidator(
                        expectedState: state, expectedIssuer: "https://issuer.example.com",
                        issuerRequired: issuerRequired, responseType: responseType)
                    let answers = validator.answersRequest(url)
                    let grant: AuthorizationGrant
                    do {
                        grant = try validator.validate(url)
                    } catch {
                        let text = "\(error)"
                        FuzzHarness.require(
                            !text.unicodeScalars.contains { $0.properties.generalCategory == .control },
                            "an error carries a control character: \(text.debugDescription)")
                        continue
                    }
                    FuzzHarness.require(answers, "a validated response that does not answer the request")
                    let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
                    FuzzHarness.require(
                        !query.contains { $0.name == "access_token" }, "an access token in the query was accepted")
                    switch grant {
                    case .code(let code): FuzzHarness.require(!code.isEmpty, "an empty code was accepted")
                    case .implicit(let parameters):
                        FuzzHarness.require(responseType == .token, "an implicit grant from a code response")
                        FuzzHarness.require(parameters["state"] == state, "an implicit grant with another state")
                    }
                }
            }
        }
    }
}
