// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthTesting

/// Whether the loopback listener that served `path` on `port` is gone.
///
/// Tests run in parallel, and the system may hand a released port number straight to another
/// test's listener; so "something still accepts connections on the port" does not prove a leak.
/// Asking for this listener's own (unique) path does: a refused connection, or another
/// listener's 404, means ours has let the port go.
public func loopbackListenerIsGone(port: Int, path: String) async -> Bool {
    guard let reply = try? await RawHTTPClient.get(port: port, target: path + "?probe=1") else { return true }
    return reply.status == 404 || reply.status == 0
}

/// A callback path no other test uses, such as `/callback-1a2b3c4d`.
public func uniqueCallbackPath(_ prefix: String = "/callback") -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
}
