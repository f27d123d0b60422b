import Foundation
import FuzzHarness
import WebAuthTokenFiles

/// A stored token entry as the fast path's small reader (`CachedEntryReader`) reads it, against
/// the `JSONDecoder` reading it stands in for.
///
/// Input: the entry's bytes. Check: whatever the small reader answers, `JSONDecoder` reads too,
/// to the same entry (tokens, expiries, configuration name and token endpoint); what it leaves
/// (`nil`) goes to `JSONDecoder`, so the fast path's result is always that reading's.
@main
enum FuzzCachedEntryReader {
    static func main() {
        FuzzHarness.run { bytes in
            guard let read = bytes.withUnsafeBytes({ CachedEntryReader.entry($0) }) else { return }
            let decoded = CachedEntry(decodingWithFoundation: Data(bytes))
            FuzzHarness.require(decoded != nil, "an entry the small reader reads but JSONDecoder refuses")
            FuzzHarness.require(decoded == read, "an entry the small reader reads differently from JSONDecoder")
        }
    }
}
