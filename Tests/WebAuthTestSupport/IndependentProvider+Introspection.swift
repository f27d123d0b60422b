// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension IndependentProvider {
    /// What the provider's introspection endpoint (RFC 7662) says about `token`, asked with
    /// HTTP Basic authentication as the confidential client `clientID`: an independent check
    /// that the provider takes a token it issued as active.
    public func introspect(_ token: String, clientID: String, secret: String) async throws -> [String: Any] {
        var request = URLRequest(url: introspectionEndpoint)
        request.httpMethod = "POST"
        func encoded(_ value: String) -> String {
            value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
        }
        let credentials = Data("\(encoded(clientID)):\(encoded(secret))".utf8).base64EncodedString()
        request.setValue("Basic \(credentials)", forHTTPHeaderField: "Authorization")
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("token=\(encoded(token))".utf8)
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200,
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else {
            throw IntrospectionFailed(status: (response as? HTTPURLResponse)?.statusCode ?? 0)
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
