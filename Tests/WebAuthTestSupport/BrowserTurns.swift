// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Lets one test at a time run a real browser.
///
/// Tests run in parallel, and each headless Chromium keeps a core busy while it starts; several
/// at once on a small machine slow every other test in the process past its deadlines. Tests
/// that start Chromium wrap that part in ``withTurn(isolation:_:)``:
///
/// ```swift
/// let token = try await BrowserTurns.withTurn { try await signInWithChromium() }
/// ```
public enum BrowserTurns {
    private static let gate = Gate()

    /// Waits until no other test holds a turn, runs `body`, and gives the turn back.
    public static func withTurn<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Result
    ) async throws -> Result {
        await gate.acquire()
        do {
            let result = try await body()
            await gate.release()
            return result
        } catch {
            await gate.release()
            throw error
        }
    }

    private actor Gate {
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            guard busy else {
                busy = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty {
                busy = false
            } else {
                waiting.removeFirst().resume()
            }
        }
    }
}
