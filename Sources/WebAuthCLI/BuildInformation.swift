// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuth
import WebAuthBuildInfo

/// What `webauth --version` prints: the version and the commit the program was built from.
///
/// The commit comes from the build (see `WebAuthBuildInfo`), never from running git: a program
/// built by `scripts/install` or `scripts/package` names it, a plain `swift build` does not.
package enum BuildInformation {
    /// The commit the program was built from, such as `288b0bf1c2d3` or `288b0bf1c2d3-dirty`;
    /// `nil` when the build did not name one.
    package static let commit: String? = webauth_build_commit().map { String(cString: $0) }

    /// The line `webauth --version` prints, such as `webauth 0.1.0 (commit 288b0bf1c2d3)` or
    /// `webauth 0.1.0 (unknown commit)`.
    package static func versionLine(
        version: String = WebAuthVersion.current, commit: String? = BuildInformation.commit
    ) -> String {
        "webauth \(version) (\(commit.map { "commit \($0)" } ?? "unknown commit"))"
    }
}
