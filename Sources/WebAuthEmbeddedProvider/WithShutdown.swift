// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// Runs `body` with `resource`, then `shutdown(resource)`, however `body` ends: the shape of
/// every scoped `with…` function of the servers and providers the tests start.
///
/// ```swift
/// try await withShutdown(of: try await start(), shutdown: { await $0.shutdown() }, body)
/// ```
package func withShutdown<Resource: Sendable, Result>(
    of resource: Resource,
    isolation: isolated (any Actor)? = #isolation,
    shutdown: (Resource) async -> Void,
    _ body: (Resource) async throws -> Result
) async throws -> Result {
    do {
        let result = try await body(resource)
        await shutdown(resource)
        return result
    } catch {
        await shutdown(resource)
        throw error
    }
}
