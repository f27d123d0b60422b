// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import WebAuthPlatform

/// How the keyring store keeps a profile in the desktop keyring (the freedesktop.org Secret
/// Service, through libsecret's `secret-tool`): the one description both the token store and
/// the cached-token fast path use.
///
/// - A profile is one item with the attributes `service=webauth` and `profile=<name>`; its
///   secret is the entry's compact JSON, at most ``maximumEntrySize`` bytes.
/// - `secret-tool` is looked up only in the absolute directories of `PATH`: a relative one
///   (`.`) would run whatever `secret-tool` the current directory holds, and hand it the tokens.
///
/// ```swift
/// KeyringItem.attributes(profile: "work")           // ["service", "webauth", "profile", "work"]
/// KeyringItem.secretTool(searchPath: "/usr/bin:.")  // "/usr/bin/secret-tool", if installed
/// ```
package enum KeyringItem {
    /// The `service` attribute every item carries.
    package static let service = "webauth"

    /// The largest entry kept, in bytes of its JSON: less than the 8192 bytes `secret-tool store`
    /// reads from its input (it stores what it read without failing).
    package static let maximumEntrySize = 8191

    /// The attributes of `profile`'s item, as `secret-tool` takes them: name, value, name, value.
    package static func attributes(profile: String) -> [String] {
        ["service", service, "profile", profile]
    }

    /// The first executable `secret-tool` in the absolute directories of `searchPath` (a `PATH`
    /// value; `nil` means `/usr/local/bin:/usr/bin:/bin`).
    package static func secretTool(searchPath: String?) -> String? {
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        where directory.hasPrefix("/") {
            let candidate = String(directory) + "/secret-tool"
            if FileSystem.isExecutable(candidate) { return candidate }
        }
        return nil
    }
}
