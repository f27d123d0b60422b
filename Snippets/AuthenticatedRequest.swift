import Foundation
import WebAuthOAuth
import WebAuthTokenStore

func me() async throws -> HTTPTransportResponse {
    let provider = try await TokenStores().accessTokenProvider(profile: "work")
    return try await ResourceClient(tokenProvider: provider)
        .send(HTTPTransportRequest(method: "GET", url: URL(string: "https://api.example.com/me")!))
}
