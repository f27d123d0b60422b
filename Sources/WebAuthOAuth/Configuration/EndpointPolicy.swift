import Foundation

/// Which endpoint URLs the OAuth layer talks to: `https`, or `http` to a loopback address (a
/// provider on this machine, as in tests). Anything else would send codes and secrets in clear.
enum EndpointPolicy {
    static func check(_ url: URL, role: String) throws(OAuthError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw OAuthError(
                code: .insecureEndpoint, message: "the \(role) \(url.redactedForLogs) is not an absolute URL")
        }
        if scheme == "https" { return }
        if scheme == "http", isLoopback(host) { return }
        throw OAuthError(
            code: .insecureEndpoint,
            message: "the \(role) \(url.redactedForLogs) must use https (http only to a loopback address)")
    }

    /// `localhost`, an address in `127.0.0.0/8`, or `::1` — never a name that merely starts
    /// with `127.`, such as `127.attacker.example`.
    static func isLoopback(_ host: String) -> Bool {
        AuthorizationURLPolicy.isLoopback(host: host)
    }
}

/// Where the authorization response comes back, derived from the configured redirect URI.
struct RedirectTarget: Sendable, Hashable {
    /// What the session waits for.
    let callback: Callback
    /// The configured redirect URI; for loopback the port is filled in once the listener is bound.
    let configured: URL

    init(_ redirectURI: URL) throws(OAuthError) {
        guard let components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased()
        else {
            throw OAuthError(code: .invalidConfiguration, message: "the redirect URI is not an absolute URL")
        }
        guard components.query == nil, components.fragment == nil else {
            throw OAuthError(code: .invalidConfiguration, message: "the redirect URI must have no query or fragment")
        }
        configured = redirectURI
        switch scheme {
        case "http":
            guard let host = components.host, EndpointPolicy.isLoopback(host) else {
                throw OAuthError(
                    code: .invalidConfiguration,
                    message: "an http redirect URI must be loopback (http://127.0.0.1/…), RFC 8252 §7.3")
            }
            let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            let loopbackHost: LoopbackHost = host.contains(":") ? .ipv6 : .ipv4
            callback = .loopback(path: path, port: components.port ?? 0, host: loopbackHost)
        case "https":
            guard let host = components.host, !host.isEmpty else {
                throw OAuthError(code: .invalidConfiguration, message: "the https redirect URI has no host")
            }
            callback = .https(host: host.lowercased(), path: components.percentEncodedPath)
        default:
            callback = .customScheme(scheme)
        }
    }

    /// The `redirect_uri` to send: for loopback, the session's (with the bound port); otherwise
    /// the configured URI exactly as registered.
    func redirectURI(sessionRedirectURI: URL) -> URL {
        callback.isLoopback ? sessionRedirectURI : configured
    }
}
