// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HTTPTypes
import WebAuthCore
import WebAuthEmbeddedProvider

extension IndependentProvider {
    /// What the provider's introspection endpoint (RFC 7662) says about `token`, asked with
    /// HTTP Basic authentication as the confidential client `clientID`: an independent check
    /// that the provider takes a token it issued as active.
    public func introspect(_ token: String, clientID: String, secret: String) async throws -> [String: Any] {
        // HTTP Basic credentials are form-encoded first (RFC 6749 §2.3.1).
        let credentials = Data("\(FormEncoding.escape(clientID)):\(FormEncoding.escape(secret))".utf8)
            .base64EncodedString()
        let answer = try await RawHTTPClient.request(
            method: "POST", url: introspectionEndpoint,
            headerFields: [
                .authorization: "Basic \(credentials)", .contentType: "application/x-www-form-urlencoded",
            ],
            body: Array(FormEncoding.encode([("token", token)]).utf8))
        guard answer.status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        else {
            throw IntrospectionFailed(status: answer.status)
        }
        return object
    }

    /// The introspection endpoint did not answer with a JSON object.
    public struct IntrospectionFailed: Error, CustomStringConvertible {
        /// The HTTP status it answered with.
        public var status: Int
        /// Says what happened.
        public var description: String { "the introspection endpoint answered \(status)" }
    }
}
