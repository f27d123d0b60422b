// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Which of the agent's two sockets a request came in on.
///
/// The full door is for this user's programs on this machine; the forwarding door is meant to
/// be forwarded (`ssh -R`, a bind mount into a container), so its far side is treated as a
/// stranger with a token request: it sees only the profiles added with `--forward`, gets
/// tokens of those and nothing else, and names nothing the agent then uses but a profile, a
/// validity and a target to exchange for.
package enum AgentDoor: String, Sendable, Hashable {
    /// The agent's socket: tokens, `add`, `remove`, `status` and `stop`.
    case full
    /// The forwarding socket: tokens of forwarded profiles only.
    case forwarding
}
