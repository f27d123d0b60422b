// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import FuzzHarness
import HTTPTypes
import WebAuthCore
import WebAuthOAuth

/// ID token validation as the OAuth client does it: the JWT's header, signature and claims
/// (jwt-kit), with the keys read from a JWKS the provider serves.
///
/// Input: when the first byte is even, the rest is a JWKS document, a NUL byte and a compact
/// JWT, checked against those keys (RS256, ES256). When it is odd, the rest is a JOSE header, a
/// NUL byte and a claims set, which the target signs with the client secret (HS256), so the
/// claims checks are reached too. Check: an accepted token has our issuer and audience.
@main
enum FuzzIDToken {
    static let issuer = "https://issuer.example.com"
    static let clientSecret = "fuzz-client-secret-0123456789abcdef"
    static let metadata = Data(
        """
        {"issuer":"\(issuer)","jwks_uri":"\(issuer)/jwks","token_endpoint":"\(issuer)/token",
        "authorization_endpoint":"\(issuer)/authorize"}
        """.utf8)

    static func main() {
        FuzzHarness.run { bytes in
            guard let mode = bytes.first else { return }
            let parts = FuzzHarness.parts(of: Array(bytes.dropFirst()), limit: 2)
            guard parts.count == 2 else { return }
            let jwks: Data
            let token: String
            if mode % 2 == 0 {
                jwks = Data(parts[0])
                token = String(decoding: parts[1], as: UTF8.self)
            } else {
                jwks = Data(#"{"keys":[]}"#.utf8)
                let signingInput =
                    Data(parts[0]).base64URLEncodedString() + "." + Data(parts[1]).base64URLEncodedString()
                let signature = HMAC<SHA256>.authenticationCode(
                    for: Data(signingInput.utf8), using: SymmetricKey(data: Data(clientSecret.utf8)))
                token = signingInput + "." + Data(signature).base64URLEncodedString()
            }
            FuzzHarness.wait { await validate(token, jwks: jwks) }
        }
    }

    static func validate(_ token: String, jwks: Data) async {
        let transport = RoutingTransport(documents: [
            issuer + "/.well-known/openid-configuration": metadata, issuer + "/jwks": jwks,
        ])
        let configuration = ClientConfiguration(
            issuer: URL(string: issuer)!, clientID: "fuzz-client", clientSecret: clientSecret, scopes: ["openid"],
            idTokenSigningAlgorithms: ["RS256", "ES256", "HS256"])
        guard let client = try? OAuthClient(configuration: configuration, transport: transport) else {
            fatalError("the fuzz client's configuration is refused")
        }
        guard let claims = try? await client.validateIDToken(token, nonce: nil) else { return }
        FuzzHarness.require(claims.issuer == issuer, "an accepted ID token from another issuer")
        FuzzHarness.require(claims.audience.contains("fuzz-client"), "an accepted ID token for another audience")
    }
}

/// Serves fixed documents by URL; anything else is a 404.
struct RoutingTransport: HTTPTransport {
    let documents: [String: Data]

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse {
        guard let body = documents[request.url.absoluteString] else { return HTTPTransportResponse(status: 404) }
        return HTTPTransportResponse(
            status: 200, headerFields: [.contentType: "application/json"], body: body)
    }
}
