import WebAuthSignIn

func signIn(with client: OAuthClient) async throws -> TokenSet {
    let authorization = try await client.startDeviceAuthorization()
    print("Open \(authorization.verificationURI) and enter \(authorization.userCode)")
    return try await client.pollDeviceAuthorization(authorization)
}
