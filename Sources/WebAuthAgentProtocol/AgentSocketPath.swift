// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// Where the agent listens: `WEBAUTH_AGENT_SOCK` when set, else `agent.sock` in the private
/// directory of the project's other sockets — `$XDG_RUNTIME_DIR/webauth`, or
/// `$TMPDIR/webauth-{uid}` (else `/tmp/webauth-{uid}`) without a runtime directory.
///
/// The agent has two doors. ``path`` is the full one, for this user's programs on this
/// machine: it serves tokens and takes `add`, `remove`, `status` and `stop`.
/// ``forwardingPath``, beside it, is the one to forward (`ssh -R`, a bind mount into a
/// container): it serves tokens of the profiles added with `--forward`, and nothing else.
package struct AgentSocketPath: Sendable, Hashable {
    /// The environment variable that names another socket.
    package static let variable = "WEBAUTH_AGENT_SOCK"
    /// The variable `agent start` sets to the forwarding socket's path, for the person's
    /// `ssh -R` line (no client reads it: on the far side, `WEBAUTH_AGENT_SOCK` names it).
    package static let forwardingVariable = "WEBAUTH_AGENT_FORWARD_SOCK"
    /// The environment variables the path depends on.
    package static let environmentNames = [variable, "XDG_RUNTIME_DIR", "TMPDIR"]

    /// The socket's path.
    package let path: String
    /// Whether `WEBAUTH_AGENT_SOCK` named it (rather than the default).
    package let isNamed: Bool

    /// The path for `environment`; a relative `WEBAUTH_AGENT_SOCK` or runtime directory is
    /// ignored.
    package init(environment: [String: String]) {
        self.init(environmentValue: { environment[$0] })
    }

    /// The path for the environment `environmentValue` reads (a variable's value, `nil` when
    /// unset), as ``init(environment:)`` finds it.
    package init(environmentValue: (String) -> String?) {
        if let named = environmentValue(Self.variable), named.hasPrefix("/") {
            path = named
            isNamed = true
            return
        }
        isNamed = false
        if let runtime = environmentValue("XDG_RUNTIME_DIR"), runtime.hasPrefix("/") {
            path = runtime + "/webauth/agent.sock"
        } else {
            var temporary = environmentValue("TMPDIR") ?? "/tmp"
            if !temporary.hasPrefix("/") { temporary = "/tmp" }
            while temporary.count > 1, temporary.hasSuffix("/") { temporary.removeLast() }
            path = temporary + "/webauth-\(CurrentProcess.effectiveUserID)/agent.sock"
        }
    }

    /// The forwarding socket: the path with `.forward` appended.
    package var forwardingPath: String { Self.forwardingPath(of: path) }

    /// The forwarding socket beside the agent's socket at `path`.
    package static func forwardingPath(of path: String) -> String { path + ".forward" }

    /// The directory the socket is in.
    package var directory: String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
