import Foundation

/// Client authentication at the token, revocation and device authorization endpoints
/// (RFC 6749 §2.3), as a pure function of the request's `Authorization` header and form.
///
/// Public clients send `client_id` only. Confidential clients use `client_secret_basic`
/// (HTTP Basic; the ID and secret are form-decoded after Base64, RFC 6749 §2.3.1) or
/// `client_secret_post` (both in the form), never both. Secrets are compared in constant time.
enum ClientAuthentication {
    /// How the client presented itself.
    enum Method: String, Sendable, Hashable {
        case none
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
    }

    /// The authenticated client and how it authenticated, or the error to answer with
    /// (`invalid_client` is `401`, with a Basic challenge when Basic was tried).
    enum Outcome: Sendable, Hashable {
        case authenticated(EmbeddedProvider.Client, Method)
        case failed(ProtocolError, challenge: Bool)
    }

    static func authenticate(
        authorization: String?, form: [(name: String, value: String)], clients: [EmbeddedProvider.Client]
    ) -> Outcome {
        func invalidClient(_ description: String, basic: Bool) -> Outcome {
            .failed(ProtocolError(code: "invalid_client", description: description, status: 401), challenge: basic)
        }
        let formIDs = form.filter { $0.name == "client_id" }.map(\.value)
        let formSecrets = form.filter { $0.name == "client_secret" }.map(\.value)
        guard formIDs.count <= 1, formSecrets.count <= 1 else {
            return .failed(.invalidRequest("client_id or client_secret is repeated"), challenge: false)
        }

        if let authorization, authorization.lowercased().hasPrefix("basic ") {
            guard let (id, secret) = basicCredentials(authorization) else {
                return invalidClient("the Basic credentials are malformed", basic: true)
            }
            guard formSecrets.isEmpty else {
                return .failed(
                    .invalidRequest("use one client authentication method, not Basic and client_secret"),
                    challenge: false)
            }
            if let formID = formIDs.first, formID != id {
                return .failed(.invalidRequest("client_id differs from the Basic credentials"), challenge: false)
            }
            guard let client = clients.first(where: { $0.id == id }), let expected = client.secret else {
                return invalidClient("client authentication failed", basic: true)
            }
            guard ProviderSecrets.constantTimeEquals(secret, expected) else {
                return invalidClient("client authentication failed", basic: true)
            }
            return .authenticated(client, .clientSecretBasic)
        }

        guard let id = formIDs.first, !id.isEmpty else {
            return invalidClient("client authentication is required", basic: false)
        }
        guard let client = clients.first(where: { $0.id == id }) else {
            return invalidClient("client authentication failed", basic: false)
        }
        switch (client.secret, formSecrets.first) {
        case (nil, nil):
            return .authenticated(client, .none)
        case (nil, .some):
            return invalidClient("this client is public and has no secret", basic: false)
        case (.some, nil):
            return invalidClient("this client must authenticate", basic: false)
        case (.some(let expected), .some(let presented)):
            guard ProviderSecrets.constantTimeEquals(presented, expected) else {
                return invalidClient("client authentication failed", basic: false)
            }
            return .authenticated(client, .clientSecretPost)
        }
    }

    /// How a request tried to authenticate its client, right or wrong: HTTP Basic, a
    /// `client_secret` in the form, or a `client_id` alone; `nil` when it did none of these.
    /// For the request log, which keeps the method and never the credentials.
    static func presentedMethod(authorization: String?, form: [(name: String, value: String)]) -> Method? {
        if let authorization, authorization.lowercased().hasPrefix("basic ") { return .clientSecretBasic }
        if form.contains(where: { $0.name == "client_secret" }) { return .clientSecretPost }
        if form.contains(where: { $0.name == "client_id" }) { return Method.none }
        return nil
    }

    /// The form-decoded client ID and secret of a `Basic` header, or `nil` if it is not one.
    static func basicCredentials(_ header: String) -> (id: String, secret: String)? {
        let encoded = header.dropFirst("basic ".count).trimmingCharacters(in: .whitespaces)
        guard let data = Data(base64Encoded: encoded), let pair = String(data: data, encoding: .utf8),
            let colon = pair.firstIndex(of: ":")
        else { return nil }
        func formDecoded(_ part: Substring) -> String? {
            part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        guard let id = formDecoded(pair[..<colon]), let secret = formDecoded(pair[pair.index(after: colon)...]),
            !id.isEmpty
        else { return nil }
        return (id, secret)
    }
}
