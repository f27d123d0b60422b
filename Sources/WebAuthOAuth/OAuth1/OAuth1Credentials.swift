// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A token and its shared secret (RFC 5849 §1.1): the token credentials an OAuth 1.0a sign-in
/// ends with, or the temporary credentials it uses on the way.
///
/// Keep them as you would a password: together with the consumer secret they sign requests as
/// the person. ``description``, ``debugDescription`` and mirrors (`dump`) never show the token
/// or the secret, and show only the names of the ``additionalParameters``.
///
/// ```swift
/// let credentials = try await client.signIn()  // an OAuth1Client, in WebAuthSignIn
/// print(credentials)                               // OAuth1Credentials(token: <redacted>, …)
/// let name = credentials.additionalParameters["screen_name"]
/// let signed = client.sign(request, with: credentials)
/// ```
public struct OAuth1Credentials: Sendable, Hashable, Codable, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The token (`oauth_token`).
    public var token: String
    /// The token's shared secret (`oauth_token_secret`).
    public var tokenSecret: String
    /// The other parameters of the server's response, such as Twitter's `user_id` and
    /// `screen_name`. The first value of each name is kept.
    public var additionalParameters: [String: String]

    /// Creates credentials.
    public init(token: String, tokenSecret: String, additionalParameters: [String: String] = [:]) {
        self.token = token
        self.tokenSecret = tokenSecret
        self.additionalParameters = additionalParameters
    }

    /// The type and the names of the additional parameters; never the token or the secret.
    public var description: String {
        let names = additionalParameters.keys.sorted().joined(separator: ", ")
        return "OAuth1Credentials(token: <redacted>, tokenSecret: <redacted>, additionalParameters: [\(names)])"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without the token or the secret, so `dump` shows neither.
    public var customMirror: Mirror {
        Mirror(self, children: ["additionalParameterNames": additionalParameters.keys.sorted()])
    }
}
