// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The environment variables a secret is read from, written down once: ``Subprocess`` removes
/// every one of them from the environment of every program the package starts — the person's
/// browser through `xdg-open` or `$BROWSER`, a controlled Chromium or Firefox, `secret-tool`,
/// `xdg-mime` — so no secret outlives `webauth` in a long-lived browser's `/proc/PID/environ`.
///
/// Code that reads a secret from the environment reads it through a name listed here.
package enum SecretEnvironment {
    /// `WEBAUTH_CLIENT_SECRET`: the OAuth client secret for `webauth login`.
    package static let clientSecret = "WEBAUTH_CLIENT_SECRET"

    /// Every variable a secret is read from.
    package static let names: Set<String> = [clientSecret]

    /// `environment` without the variables in ``names``.
    package static func removingSecrets(from environment: [String: String]) -> [String: String] {
        environment.filter { !names.contains($0.key) }
    }
}
