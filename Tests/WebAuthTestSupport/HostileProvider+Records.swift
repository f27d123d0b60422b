import Foundation

extension HostileProvider {
    /// How a token request authenticated its client.
    package enum ClientAuthentication: Sendable, Hashable {
        /// No secret: a public client, with the `client_id` it sent (if any).
        case none(clientID: String?)
        /// HTTP Basic (`client_secret_basic`), form-decoded.
        case basic(clientID: String, secret: String)
        /// `client_id` and `client_secret` in the body (`client_secret_post`).
        case post(clientID: String, secret: String)
        /// More than one method at once, which RFC 6749 §2.3 forbids.
        case several
        /// An `Authorization` header that is not valid Basic credentials.
        case malformed

        /// The client ID it names, if one.
        package var clientID: String? {
            switch self {
            case .none(let id): id
            case .basic(let id, _), .post(let id, _): id
            case .several, .malformed: nil
            }
        }
    }

    /// One request to `/token` (or `/revoke`), as the provider understood it.
    package struct TokenRequestRecord: Sendable, Hashable {
        /// `grant_type` (for `/revoke`, `revocation`).
        package var grantType: String?
        /// How the client authenticated.
        package var clientAuthentication: ClientAuthentication
        /// The form fields, in order (secrets included: this is a test double).
        package var form: [URLQueryItem]
        /// `nil` for success, else the `error` code answered.
        package var error: String?

        /// The first value of the form field `name`.
        package func formValue(_ name: String) -> String? {
            form.first { $0.name == name }?.value
        }
    }
}

/// An error starting or scripting a ``HostileProvider``.
package struct HostileProviderError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String

    /// Creates an error.
    package init(description: String) { self.description = description }
}
