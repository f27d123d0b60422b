// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthTokenFiles

/// Which Kubernetes API servers a profile's token may go to through `webauth exec-credential`:
/// the one rule that the full command and the cached-token fast path both apply.
///
/// client-go tells an exec plugin which cluster it asks for when the kubeconfig's exec section
/// sets `provideClusterInfo: true` (`KUBERNETES_EXEC_INFO`'s `spec.cluster.server`). The
/// allowed servers are those given with `--cluster-server URL`. With none, every cluster is
/// answered, as before the option existed. With some, the client must name its cluster, and it
/// must be one of them; otherwise the plugin refuses.
///
/// Servers compare as URLs: the scheme and host without regard to case, the port with the
/// scheme's default filled in (`https://k8s.example.com` is `https://k8s.example.com:443`), the
/// path exactly, a trailing `/` aside. They are read as ``PlainURL`` reads them, without
/// Foundation (the fast path applies the rule too): a server written with percent-encoding or a
/// user is refused.
///
/// ```swift
/// ClusterServerBinding.decision(server: "https://k8s.example.com:6443", allowed: ["https://K8S.example.com:6443/"])
/// // .allowed
/// ```
public enum ClusterServerBinding {
    /// What the plugin does for a request.
    public enum Decision: Sendable, Hashable {
        /// Answer: no servers are configured, or the client's server is one of them.
        case allowed
        /// Refuse: servers are configured, and the client did not say which cluster it asks for
        /// (no `provideClusterInfo: true`, or a client-go too old to send it).
        case noClusterInfo
        /// Refuse: the client's server is none of the configured ones.
        case notAllowed
    }

    /// Whether a request for `server` (the client's `spec.cluster.server`, `nil` when it sent
    /// none) may be answered, given the `allowed` servers.
    public static func decision(server: String?, allowed: [String]) -> Decision {
        guard !allowed.isEmpty else { return .allowed }
        guard let server, !server.isEmpty else { return .noClusterInfo }
        guard let asked = normalized(server) else { return .notAllowed }
        return allowed.contains(where: { normalized($0) == asked }) ? .allowed : .notAllowed
    }

    /// `server` in the form servers are compared in — `scheme://host:port/path`, the scheme and
    /// host in lower case, the scheme's default port filled in, no trailing `/` — or `nil` when
    /// it is not an `https` or `http` URL with a host and nothing but a path after it (no user,
    /// query or fragment), written in ``PlainURL``'s form: a host name or an IPv6 address in
    /// brackets, and no percent-encoding.
    public static func normalized(_ server: String) -> String? {
        guard let url = PlainURL(server), url.query == nil, url.fragment == nil else { return nil }
        let scheme = url.scheme.lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        guard (1...65535).contains(port) else { return nil }
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        let host = url.host.lowercased()
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)\(path)"
    }
}
