// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import FuzzHarness
import WebAuthAgentProtocol
import WebAuthTokenFiles
import WebAuthTokenStore

/// A stored token entry, the profile index and an agent's answer as the fast path's small
/// readers (`CachedEntryReader`, `ProfileIndexReader`, `AgentAnswerReader`) read them, against
/// the `JSONDecoder` readings they stand in for.
///
/// Input: the bytes, read as all three. Check: whatever a small reader answers, `JSONDecoder`
/// reads too, to the same value (an entry's tokens, expiries, configuration name and token
/// endpoint; an index's version, profiles and bindings; an answer whole); what it leaves (`nil`) goes to
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
            if let read = bytes.withUnsafeBytes({ AgentAnswerReader.answer($0) }) {
                let decoded = AgentAnswer(decodingWithFoundation: bytes)
                FuzzHarness.require(decoded != nil, "an answer the small reader reads but JSONDecoder refuses")
                FuzzHarness.require(decoded == read, "an answer the small reader reads differently from JSONDecoder")
            }
        }
    }
}
