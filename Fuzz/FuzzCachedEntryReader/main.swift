import Foundation
import FuzzHarness
import WebAuthTokenFiles

/// A stored token entry and the profile index as the fast path's small readers
/// (`CachedEntryReader`, `ProfileIndexReader`) read them, against the `JSONDecoder` readings
/// they stand in for.
///
/// Input: the file's bytes, read as both. Check: whatever a small reader answers, `JSONDecoder`
/// reads too, to the same value (an entry's tokens, expiries, configuration name and token
/// endpoint; an index's version, profiles and bindings); what it leaves (`nil`) goes to
/// `JSONDecoder`, so the fast path's result is always that reading's.
@main
enum FuzzCachedEntryReader {
    static func main() {
        FuzzHarness.run { bytes in
            if let read = bytes.withUnsafeBytes({ CachedEntryReader.entry($0) }) {
                let decoded = CachedEntry(decodingWithFoundation: Data(bytes))
                FuzzHarness.require(decoded != nil, "an entry the small reader reads but JSONDecoder refuses")
                FuzzHarness.require(decoded == read, "an entry the small reader reads differently from JSONDecoder")
            }
            if let read = bytes.withUnsafeBytes({ ProfileIndexReader.contents($0) }) {
                let decoded = ProfileIndexFormat.decodedWithFoundation(Data(bytes))
                FuzzHarness.require(decoded != nil, "an index the small reader reads but JSONDecoder refuses")
                FuzzHarness.require(decoded == read, "an index the small reader reads differently from JSONDecoder")
            }
        }
    }
}
