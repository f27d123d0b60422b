// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthTokenFiles

/// The names of the profiles an agent holds with nothing on disk (`login --agent-only`), in a
/// file beside its socket (`agent.sock.agent-only`, mode 0600, one name a line, no secret): so
/// that once that agent is gone, asking for such a profile says the agent holding it stopped
/// rather than only "not signed in". The agent writes it; anyone reads it.
package struct AgentOnlyProfiles: Sendable {
    /// The file's path.
    package let path: String

    /// The list beside the socket at `socketPath`.
    package init(socketPath: String) {
        path = socketPath + ".agent-only"
    }

    /// The names listed; none when there is no file, or it cannot be read, or it is not one
    /// the stores trust as they trust the profile index (a regular file of this user's, not a
    /// link, not writable by group or others: see `TokenFileLayout.isTrustedIndex`). A FIFO or
    /// a device there never hangs the read.
    package func names() -> Set<String> {
        guard let bytes = TrustedFile.read(path, limit: 64 * 1024, trusted: TokenFileLayout.isTrustedIndex) else {
            return []
        }
        return Set(String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// Whether `profile` is listed.
    package func contains(_ profile: String) -> Bool { names().contains(profile) }

    /// Lists `names` (replacing the file; removing it when there are none).
    package func write(_ names: Set<String>) {
        guard !names.isEmpty else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        let text = names.sorted().joined(separator: "\n") + "\n"
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).new"
        guard
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else { return }
        if rename(temporary, path) != 0 { try? FileManager.default.removeItem(atPath: temporary) }
    }
}
