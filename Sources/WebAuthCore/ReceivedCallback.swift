import Foundation

/// What a finished ``WebAuthSession`` hands back: the callback URL and the redirect
/// URI the authorization URL was built with.
///
/// The redirect URI is the one the session gave the authorization URL builder — for a loopback
/// callback with the port the listener bound, for a callback made with
/// ``Callback/init(redirectURI:)`` the registered URI — so a client can send the same
/// `redirect_uri` to the token endpoint without rebuilding it (RFC 6749 §4.1.3).
///
/// ```swift
/// let received = try await session.authenticate()
/// let code = URLComponents(url: received.url, resolvingAgainstBaseURL: false)?
///     .queryItems?.first { $0.name == "code" }?.value
/// try await exchange(code: code, redirectURI: received.redirectURI)
/// ```
public struct ReceivedCallback: Sendable, Hashable, CustomStringConvertible {
    /// The URL the browser was sent to: the callback, with the authorization response.
    public var url: URL
    /// The redirect URI the authorization request carried.
    public var redirectURI: URL

    /// Creates a received callback.
    public init(url: URL, redirectURI: URL) {
        self.url = url
        self.redirectURI = redirectURI
    }

    /// A readable form that does not reveal the callback URL's parameters.
    public var description: String {
        "\(url.redactedForLogs) (redirect URI \(redirectURI.redactedForLogs))"
    }
}
