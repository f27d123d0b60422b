import Foundation

/// A form a client posted to a back-channel endpoint (token, revocation, device authorization),
/// with the client it authenticated as.
struct ClientPost {
    /// The authenticated client.
    var client: EmbeddedProvider.Client
    /// The form's items, in order, duplicates kept.
    var form: [(name: String, value: String)]

    /// Either the accepted post, or the answer that ends the request.
    enum Check {
        case accepted(ClientPost)
        case rejected(ProviderEngine.Answer)
    }
}

extension ProviderEngine {
    /// The parameters a request may carry more than once.
    static let repeatable: Set<String> = ["resource", "audience"]

    /// The start every back-channel endpoint shares: `POST` only, an
    /// `application/x-www-form-urlencoded` body, client authentication (RFC 6749 §2.3.1,
    /// §3.2.1) with a Basic challenge when the client tried HTTP Basic, and no parameter sent
    /// more than once (RFC 6749 §3.1: `invalid_request`), so that no endpoint has to choose
    /// between two values. `resource` (RFC 8707 §2) and `audience` (RFC 8693 §2.1) are the
    /// exceptions those documents make: each may be sent several times.
    ///
    /// - Parameter loggedGrantType: The grant type the request log records for a refused
    ///   client, from the form (only the token endpoint has one).
    func checkClientPost(
        _ request: ServerRequest, loggedGrantType: ([(name: String, value: String)]) -> String? = { _ in nil }
    ) -> ClientPost.Check {
        guard request.method == "POST" else { return .rejected(Answer(ProviderHTTP.methodNotAllowed(["POST"]))) }
        guard let form = ProviderHTTP.formParameters(request) else {
            return .rejected(errorAnswer(.invalidRequest("the body must be application/x-www-form-urlencoded")))
        }
        switch ClientAuthentication.authenticate(
            authorization: request.header("Authorization"), form: form, clients: clients)
        {
        case .failed(let error, let challenge):
            return .rejected(
                errorAnswer(
                    error, grantType: loggedGrantType(form), challenge: challenge ? ProviderHTTP.basicChallenge : nil))
        case .authenticated(let client, _):
            var seen = Set<String>()
            for item in form where !Self.repeatable.contains(item.name) && !seen.insert(item.name).inserted {
                let name = item.name.isSafeProtocolToken ? item.name : "a parameter"
                return .rejected(errorAnswer(.invalidRequest("\(name) is repeated"), grantType: loggedGrantType(form)))
            }
            return .accepted(ClientPost(client: client, form: form))
        }
    }
}
