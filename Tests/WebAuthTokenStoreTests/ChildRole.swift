// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthOAuth
import WebAuthTokenStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The code a child process runs (see ``ChildProcess``). Enabled only in such a child, where
/// the role is set; in the ordinary test run it shows as skipped.
@Suite struct ChildRole {
    @Test(
        .enabled(if: ProcessInfo.processInfo.environment[ChildProcess.roleVariable] != nil, "runs in child processes"))
    func childProcessEntryPoint() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let role = environment[ChildProcess.roleVariable],
            let directory = environment["WEBAUTH_TOKENSTORE_TEST_DIRECTORY"]
        else { return }
        switch role {
        case "crash-writer":
            // Writes rt-1, rt-2, … (with a 64 KiB ID token, so each write takes a while) until
            // it is killed.
            let store = try FileTokenStore(directory: directory, lockTimeout: .seconds(300))
            var next = (counter(of: try await store.load(profile: "crash")) ?? 0) + 1
            while true {
                try await store.save(entry(next, padding: 64 * 1024), profile: "crash")
                next += 1
            }
        case "incrementer":
            let store = try FileTokenStore(directory: directory, lockTimeout: .seconds(300))
            let count = Int(environment["WEBAUTH_TOKENSTORE_TEST_COUNT"] ?? "") ?? 0
            for _ in 0..<count {
                try await store.update(profile: "shared") { stored in
                    entry((counter(of: stored) ?? 0) + 1)
                }
            }
        case "umask-writer":
            let mask = mode_t(environment["WEBAUTH_TOKENSTORE_TEST_UMASK"] ?? "", radix: 8) ?? 0
            umask(mask)
            let store = try FileTokenStore(directory: directory + "/tokens")
            try await store.save(entry(1), profile: "umask")
        case "refresher":
            // Refreshes the profile `shared` through the store, each call forced to refresh.
            let stores = TokenStores(
                selection: .file, environment: TokenStoresTests.environment(directory), lockTimeout: .seconds(300))
            let provider = try await stores.accessTokenProvider(profile: "shared", refreshMargin: .seconds(7200))
            let count = Int(environment["WEBAUTH_TOKENSTORE_TEST_COUNT"] ?? "") ?? 0
            for _ in 0..<count {
                _ = try await provider.accessToken()
            }
        default:
            Issue.record("unknown role \(role)")
        }
    }
}
