// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTestSupport

/// Every fuzz target, built the ordinary way, replays its committed corpus (valid inputs,
/// near misses, and every input that once crashed it) without breaking.
@Suite struct FuzzCorpusReplayTests {
    static let targets = [
        "FuzzLoopbackRequest", "FuzzAuthorizationResponse", "FuzzEndpointResponse", "FuzzIDToken", "FuzzDevTools",
        "FuzzBiDiMessage", "FuzzSchemeSocket", "FuzzBrowserSocket", "FuzzTokenEntry",
        "FuzzProfileIndex", "FuzzSecretServiceReply", "FuzzCachedEntryReader",
    ]

    static let corpusRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test(arguments: targets)
    func replaysItsCorpus(target: String) async throws {
        let corpus = Self.corpusRoot.appendingPathComponent(target)
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
        #expect(!inputs.isEmpty, "no corpus for \(target)")

        let result = try await TemporaryDesktop.run(
            TemporaryDesktop.builtProductsDirectory.appendingPathComponent(target).path, [corpus.path],
            environment: ProcessInfo.processInfo.environment, timeout: .seconds(60))
        #expect(result.status == 0, "\(target) failed on its corpus: \(result.standardError)")
        #expect(result.standardOutput.contains("replayed \(inputs.count) inputs"))
    }
}
