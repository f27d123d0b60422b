// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The parameters a callback URL carries, read once: its query and its fragment, each decoded
/// as `application/x-www-form-urlencoded`, keeping the first value of each name.
///
/// Some providers put `?` before the fragment's parameters (`#?access_token=…`); that mark is
/// skipped, so both forms read the same.
///
/// ```swift
/// let parameters = CallbackParameters(URL(string: "http://127.0.0.1:5/cb?code=abc&state=xyz")!)
/// parameters.query["code"]  // "abc"
/// ```
public struct CallbackParameters: Sendable, Hashable {
    /// The query's parameters.
    public var query: [String: String]
    /// The fragment's parameters.
    public var fragment: [String: String]

    /// Reads the parameters of `url`.
    public init(_ url: URL) {
        self.init(components: URLComponents(url: url, resolvingAgainstBaseURL: false))
    }

    /// Reads the parameters of a URL already split into components.
    package init(components: URLComponents?) {
        query = Self.firstValues(components?.percentEncodedQuery)
        var fragment = components?.percentEncodedFragment
        if fragment?.hasPrefix("?") == true { fragment?.removeFirst() }
        self.fragment = Self.firstValues(fragment)
    }

    private static func firstValues(_ encoded: String?) -> [String: String] {
        guard let encoded else { return [:] }
        var values: [String: String] = [:]
        for (name, value) in FormEncoding.decode(encoded) where values[name] == nil {
            values[name] = value
        }
        return values
    }
}
