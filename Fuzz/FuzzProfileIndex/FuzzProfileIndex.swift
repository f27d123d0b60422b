// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthTokenStore

/// The profile index (`profiles.json`) as `webauth` reads it.
///
/// Input: the file's bytes. Check: an index that reads names only profiles and store kinds,
/// and reads the same twice.
@main
enum FuzzProfileIndex {
    static func main() {
        FuzzHarness.run { bytes in
            let data = Data(bytes)
            let entries = ProfileIndex.entries(decoding: data)
            FuzzHarness.require(entries == ProfileIndex.entries(decoding: data), "the index read two ways")
        }
    }
}
