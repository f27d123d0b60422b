import Foundation
import FuzzHarness
import WebAuthTokenStore

/// A stored token entry as the file store and the keyring store read it back.
///
/// Input: the entry's bytes. Checks: a failure names the profile; an entry that reads encodes
/// again and reads back with the same access token.
@main
enum FuzzTokenEntry {
    static func main() {
        FuzzHarness.run { bytes in
            let data = Data(bytes)
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
