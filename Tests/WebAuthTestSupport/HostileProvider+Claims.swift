import Foundation
import JWTKit

extension HostileProvider {
    /// The claims of an ID token the provider mints: any JSON members, so a test can set,
    /// change or remove each one (`iss`, `sub`, `aud` as a string or an array, `azp`, `exp`,
    /// `iat`, `nonce`, …) and add any other.
    ///
    /// ```swift
    /// provider.script {
    ///     $0.idToken.editClaims = { claims, context in
    ///         claims["iss"] = "https://evil.example"
    ///         claims["iat"] = nil                                   // removed
    ///         claims["aud"] = .strings([context.clientID ?? "", "other-client"])
    ///         claims.setTime("exp", context.now.addingTimeInterval(-3600))
    ///     }
    /// }
    /// ```
    package struct Claims: JWTPayload, Sendable, Hashable {
        /// The members, by name.
        package var members: [String: JSONValue]

        /// Claims with the given members.
        package init(_ members: [String: JSONValue] = [:]) { self.members = members }

        /// The member `name`; setting `nil` removes it (to send JSON `null`, set `.null`).
        package subscript(name: String) -> JSONValue? {
            get { members[name] }
            set { members[name] = newValue }
        }

        /// Sets the member `name` to `date` as a JWT `NumericDate` (whole seconds since 1970).
        package mutating func setTime(_ name: String, _ date: Date) {
            members[name] = .date(date)
        }

        /// `iss`, when it is a string.
        package var issuer: String? { members["iss"]?.stringValue }
        /// `sub`, when it is a string.
        package var subject: String? { members["sub"]?.stringValue }
        /// `nonce`, when it is a string.
        package var nonce: String? { members["nonce"]?.stringValue }
        /// `aud` as a list: one element for a string, the strings of an array.
        package var audience: [String] {
            switch members["aud"] {
            case .string(let value): [value]
            case .array(let values): values.compactMap(\.stringValue)
            default: []
            }
        }

        /// Nothing: the provider mints claims, it does not check them.
        package func verify(using algorithm: some JWTAlgorithm) async throws {}

        /// Decodes a JSON object.
        package init(from decoder: any Decoder) throws {
            members = try decoder.singleValueContainer().decode([String: JSONValue].self)
        }

        /// Encodes the members as a JSON object.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(members)
        }
    }

    /// What the provider knew when it minted an ID token, for a ``Script/IDToken/editClaims``
    /// closure.
    package struct IDTokenContext: Sendable, Hashable {
        /// How the token was obtained: `authorization_code`, `refresh_token` or
        /// `urn:ietf:params:oauth:grant-type:device_code`.
        package var grantType: String
        /// The client the token is for (from the token request).
        package var clientID: String?
        /// The `nonce` of the authorization request, for the code flow.
        package var nonce: String?
        /// The scopes granted.
        package var scope: String?
        /// The subject the provider signs in.
        package var subject: String
        /// The issuer the provider serves at (not what a script put in the metadata).
        package var issuer: String
        /// The time of minting.
        package var now: Date
        /// How many ID tokens the provider minted before this one.
        package var previouslyMinted: Int
    }

    /// A scripted change to an ID token's claims.
    package typealias ClaimsEditor = @Sendable (inout Claims, IDTokenContext) -> Void
}
