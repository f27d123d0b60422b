// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthCore
package import WebAuthOAuth

/// What a sign-in handed to an agent over its socket (`webauth login --agent-only`) may carry.
///
/// The agent refreshes such a profile with what the entry says, so the entry names nothing the
/// agent would read or call on the sender's word: no file (a `private_key_jwt` key file), no
/// endpoint (the token endpoint, the registration's management URI). It names its provider by
/// the issuer alone, and the agent finds the endpoints there, by discovery, as for a `--config`
/// file that gives only an issuer; the configuration is checked as a `--config` file is.
///
/// `webauth login --agent-only` checks its configuration with this rule before the person
/// signs in, and the agent checks every entry it is given again.
package enum AgentOnlyEntryRule {
    /// Why `configuration` cannot be handed to an agent; `nil` when it can.
    package static func problem(in configuration: ClientConfiguration) -> String? {
        guard configuration.issuer != nil else {
            return "the configuration names no issuer, and the agent finds the provider's endpoints only from one"
        }
        if !configuration.endpoints.all.isEmpty {
            let named = configuration.endpoints.all.map(\.0).joined(separator: ", ")
            return "the configuration names endpoints (\(named)), which the agent takes only from the issuer"
        }
        if configuration.clientKeyFile != nil {
            return "the configuration names a key file (--client-key), which the agent never reads on a request's word"
        }
        do {
            _ = try configuration.validated()
        } catch {
            return "the configuration is not valid: \(error.message)"
        }
        return nil
    }

    /// Why `entry` cannot be handed to an agent; `nil` when it can.
    package static func problem(in entry: StoredTokens) -> String? {
        if entry.tokenEndpoint != nil {
            return "the entry names its token endpoint, which the agent takes only from the issuer"
        }
        if entry.registration != nil {
            return "the entry carries a client registration, whose management URI the agent does not take"
        }
        return entry.configuration.flatMap(problem(in:))
    }

    /// `entry` as it is handed to an agent: without the token endpoint recorded beside the
    /// configuration, nor the client's registration (its management URI is an endpoint).
    package static func prepared(_ entry: StoredTokens) -> StoredTokens {
        var prepared = entry
        prepared.tokenEndpoint = nil
        prepared.registration = nil
        return prepared
    }
}
