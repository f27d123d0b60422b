// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import HTTPTypes
import WebAuthOAuth

/// The OAuth client's reading of what its endpoints answer: token, error, device authorization
/// and discovery responses, through the public client and a transport that returns the input.
///
/// Input: the first byte picks the request (code exchange, refresh, device authorization,
/// discovery, revocation), the second the HTTP status (and whether a 401 carries a challenge),
/// the rest is the body. Check: no error says a secret the request carried, even
/// when the body quotes it back, and no error carries a control character.
@main
enum FuzzEndpointResponse {
    static let secrets = (
        code: "SplxlOBeZQQYbYS6WxSbIA", verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        refreshToken: "tGzv3JOkF0XG5Qx2TlKWIA", clientSecret: "7Fjfp0ZBr1KtDRbnfVdmIw"
    )
    static let statuses = [200, 400, 401, 500, 302, 201, 403, 503]

    static func main() {
        FuzzHarness.run { bytes in
            guard bytes.count >= 2 else { return }
            let status = statuses[Int(bytes[1]) % statuses.count]
            let challenge = bytes[1] & 0x80 != 0
            let transport = ReplyTransport(
                response: HTTPTransportResponse(
                    status: status,
                    headerFields: challenge ? [.wwwAuthenticate: "Basic realm=\"x\""] : [:],
                    body: Data(bytes.dropFirst(2))))
            let operation = bytes[0] % 5
            FuzzHarness.wait { await run(operation, transport: transport) }
        }
    }

    static func run(_ operation: UInt8, transport: ReplyTransport) async {
        let issuer = URL(string: "https://issuer.example.com")!
        let configuration = ClientConfiguration(
            issuer: operation == 3 ? issuer : nil,
            endpoints: .init(
                authorization: URL(string: "https://issuer.example.com/authorize"),
                token: URL(string: "https://issuer.example.com/token"),
                revocation: URL(string: "https://issuer.example.com/revoke"),
                deviceAuthorization: URL(string: "https://issuer.example.com/device")),
            clientID: "fuzz-client", clientSecret: secrets.clientSecret, scopes: ["profile"])
        let client: OAuthClient
        do {
            client = try OAuthClient(configuration: configuration, transport: transport)
        } catch {
            fatalError("the fuzz client's configuration is refused: \(error)")
        }
        // The secrets this request carries: only these must never be quoted back.
        let carried: [String]
        do {
            switch operation {
            case 0:
                carried = [secrets.code, secrets.verifier, secrets.clientSecret]
                _ = try await client.exchange(
                    code: secrets.code, verifier: secrets.verifier,
                    redirectURI: URL(string: "http://127.0.0.1:49152/callback")!, nonce: nil)
            case 1:
                carried = [secrets.refreshToken, secrets.clientSecret]
                _ = try await client.refresh(
                    TokenSet(accessToken: "old-access-token", refreshToken: secrets.refreshToken))
            case 2:
                carried = [secrets.clientSecret]
                _ = try await client.startDeviceAuthorization()
            case 3:
                carried = []
                _ = try await client.metadata()
            default:
                carried = [secrets.refreshToken, secrets.clientSecret]
                try await client.revoke(token: secrets.refreshToken, hint: .refreshToken)
            }
        } catch {
            let text = "\(error)"
            FuzzHarness.require(
                !text.unicodeScalars.contains { $0.properties.generalCategory == .control },
                "an error carries a control character: \(text.debugDescription)")
            for secret in carried {
                FuzzHarness.require(!text.contains(secret), "a secret of the request is in \(text.debugDescription)")
            }
        }
    }
}

/// Answers every request with the same response.
struct ReplyTransport: HTTPTransport {
    let response: HTTPTransportResponse

    func send(_ request: HTTPTransportRequest) async throws(HTTPTransportError) -> HTTPTransportResponse { response }
}
