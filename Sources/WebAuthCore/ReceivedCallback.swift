// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a finished ``WebAuthSession`` hands back: the callback URL, its parameters and the
/// redirect URI the authorization URL was built with.
///
/// The redirect URI is the one the session gave the authorization URL builder — for a loopback
/// callback with the port the listener bound, for a callback made with
/// ``Callback/init(redirectURI:)`` the registered URI — so a client can send the same
/// `redirect_uri` to the token endpoint without rebuilding it (RFC 6749 §4.1.3).
///
/// The URL's parameters are read once, when the session accepts it, and travel with it
/// (``parameters``), so nothing after the session parses the URL again:
///
/// ```swift
/// let received = try await session.authenticate()
/// let code = received.parameters.query["code"]
/// try await exchange(code: code, redirectURI: received.redirectURI)
/// ```
public struct ReceivedCallback: Sendable, Hashable, CustomStringConvertible {
    /// The URL the browser was sent to: the callback, with the authorization response.
    public var url: URL {
        didSet {
            parameters = CallbackParameters(url)
            acceptedBy = nil
        }
    }
    /// The redirect URI the authorization request carried.
    public var redirectURI: URL {
        didSet { acceptedBy = nil }
    }
    /// The query and fragment parameters of ``url``.
    public private(set) var parameters: CallbackParameters
    /// The session whose verdict accepted this callback, as it was accepted: a session takes a
    /// listener's callback without deciding it again only when it carries the session's own
    /// mark. Any change to ``url`` or ``redirectURI`` clears it, and a callback made with
    /// ``init(url:redirectURI:)`` has none, so such a callback is decided like a URL a browser
    /// offers. Not part of equality.
    package var acceptedBy: UInt64?

    /// Creates a received callback, reading the parameters of `url`.
    public init(url: URL, redirectURI: URL) {
        self.init(url: url, redirectURI: redirectURI, parameters: CallbackParameters(url))
    }

    /// Creates a received callback whose parameters have already been read.
    package init(url: URL, redirectURI: URL, parameters: CallbackParameters) {
        self.url = url
        self.redirectURI = redirectURI
        self.parameters = parameters
    }

    /// Whether both name the same callback: the same URL and redirect URI.
    public static func == (lhs: ReceivedCallback, rhs: ReceivedCallback) -> Bool {
        lhs.url == rhs.url && lhs.redirectURI == rhs.redirectURI
    }

    /// Hashes the URL and the redirect URI, what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(redirectURI)
    }

    /// A readable form that does not reveal the callback URL's parameters.
    public var description: String {
        "\(url.redactedForLogs) (redirect URI \(redirectURI.redactedForLogs))"
    }
}
