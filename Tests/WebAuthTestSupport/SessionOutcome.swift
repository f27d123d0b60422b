// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

package import Foundation
package import WebAuthCore

/// Runs `session` and returns how it ended, for tests that check a failure as closely as a
/// success.
package func outcome(of session: WebAuthSession) async -> Result<URL, WebAuthenticationSessionError> {
    do {
        return .success(try await session.authenticate().url)
    } catch {
        return .failure(error)
    }
}
