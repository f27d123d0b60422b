// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform

// Answers an honest provider does not give, for testing how a client copes with what comes
// back: token and device authorization responses with hostile members, refreshes without an
// ID token. Each one is off until a test switches it on. The switch that approves device
// authorizations at once is no forgery, but spares a test the browser a person would use.
extension EmbeddedProvider {
    /// A JSON value a forged response member carries.
    public enum ForgedJSONValue: Sendable, Hashable {
        /// A string.
        case string(String)
        /// An integer.
        case integer(Int)
        /// A floating-point number, such as `1e300` (it must be finite: JSON has no NaN).
        case number(Double)
        /// `true` or `false`.
        case bool(Bool)
        /// `null`.
        case null

        /// The value as `JSONSerialization` writes it.
        var foundationValue: Any {
            switch self {
            case .string(let value): value
            case .integer(let value): value
            case .number(let value): value
            case .bool(let value): value
            case .null: NSNull()
            }
        }
    }

    /// Sets members of the successful token responses sent from now on, replacing or adding
    /// to the provider's own — a `scope` that was not asked for, an `expires_in` of `1e300`,
    /// a `token_type` the client does not know; `nil` answers correctly again. The tokens are
    /// issued and recorded as usual.
    ///
    /// ```swift
    /// provider.forgeTokenResponseMembers(["expires_in": .number(1e300)])
    /// provider.forgeTokenResponseMembers(["scope": .string("admin\u{1B}[2J")])
    /// ```
    public func forgeTokenResponseMembers(_ members: [String: ForgedJSONValue]?) {
        engine.forgeries.withLock { $0.tokenResponseMembers = members }
    }

    /// Sets members of the device authorization responses (RFC 8628 §3.2) sent from now on,
    /// replacing or adding to the provider's own — a `user_code` or `verification_uri` with
    /// terminal control characters, an `expires_in` of `1e300`; `nil` answers correctly again.
    /// The device code itself stays valid.
    ///
    /// ```swift
    /// provider.forgeDeviceAuthorizationMembers(["verification_uri": .string("https://evil.example/\u{202E}")])
    /// ```
    public func forgeDeviceAuthorizationMembers(_ members: [String: ForgedJSONValue]?) {
        engine.forgeries.withLock { $0.deviceAuthorizationMembers = members }
    }

    /// From now on (while `withhold` is `true`), answers refreshes without an `id_token`,
    /// as some providers do, even when `openid` was granted.
    public func withholdIDTokensOnRefresh(_ withhold: Bool) {
        engine.forgeries.withLock { $0.withholdsIDTokenOnRefresh = withhold }
    }

    /// Approves every device authorization made from now on for `user` at once, as if the
    /// person had entered the code and chosen Allow before the device's first poll; `nil`
    /// leaves them waiting for a person again.
    ///
    /// For tests of a device-flow client that run without a browser. `user` should be one of
    /// ``Configuration/users``; the scopes granted are the ones the device asked for.
    public func approveDeviceAuthorizations(as user: User?) {
        engine.forgeries.withLock { $0.deviceApprover = user?.subject }
    }
}

extension ProviderHTTP {
    /// `response`, a JSON object, with `members` set.
    static func changingMembers(
        of response: ServerResponse, to members: [String: EmbeddedProvider.ForgedJSONValue]
    ) -> ServerResponse {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] else {
            return response
        }
        for (name, value) in members { object[name] = value.foundationValue }
        guard
            let body = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return response }
        var changed = response
        changed.body = Array(body)
        return changed
    }
}
