// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The desktop's own programs, as each system names them.
package enum Desktop {
    /// The program that opens a URL in the person's default browser: `xdg-open` (freedesktop.org,
    /// looked up on `PATH`) on Linux and the BSDs, `/usr/bin/open` on macOS.
    package static var urlOpener: String {
        #if os(macOS)
            "/usr/bin/open"
        #else
            "xdg-open"
        #endif
    }
}
