// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthOAuth
import WebAuthTokenFiles
import WebAuthTokenStore

/// A stored token entry as the file store and the keyring store read it back, and as the
/// cached-token fast path reads it.
///
/// Input: the entry's bytes. Checks: a failure names the profile; an entry that reads encodes
/// again and reads back with the same access token; whatever the fast path's strict reader
/// (`CachedEntry`) accepts, the store reads too, with the same access token, token type and
/// expiry.
@main
enum FuzzTokenEntry {
    static func main() {
        FuzzHarness.run { bytes in
            let data = Data(bytes)
            if let cached = CachedEntry(decoding: data) {
                let stored = try? StoredTokens.decode(data, profile: "fuzz", location: "the fuzzed entry")
                FuzzHarness.require(stored != nil, "an entry the fast path reads but the store does not")
                FuzzHarness.require(
                    stored?.tokens.accessToken == cached.tokens.accessToken
                        && stored?.tokens.tokenType == cached.tokens.tokenType
                        && stored?.tokens.expiresAt == cached.tokens.expiresAt,
                    "an entry the fast path reads differently from the store")
            }
            do {
                let entry = try StoredTokens.decode(data, profile: "fuzz", location: "the fuzzed entry")
                guard let encoded = try? entry.encoded() else {
                    FuzzHarness.require(false, "an entry that read does not encode")
                    return
                }
                let again = try? StoredTokens.decode(encoded, profile: "fuzz", location: "the fuzzed entry")
                FuzzHarness.require(
                    again?.tokens.accessToken == entry.tokens.accessToken, "an entry that does not read back")
            } catch {
                FuzzHarness.require("\(error)".contains("\"fuzz\""), "a failure that does not name the profile")
            }
        }
    }
}
