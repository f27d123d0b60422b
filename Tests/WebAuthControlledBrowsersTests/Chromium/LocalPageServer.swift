// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthEmbeddedProvider
import WebAuthTestSupport

/// The Chromium tests' network: the package's test server (`LoopbackHTTPServer`) serving fixed
/// HTML pages by path and counting every connection it accepts — including ones that never send
/// HTTP (a TLS handshake to a host the browser was told lives here), which is how a test sees
/// that a request reached "the network".
final class LocalPageServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: Int
    private let server: LoopbackHTTPServer

    /// Starts serving `pages` (path → HTML body); other paths get 404.
    init(pages: [String: String] = [:]) async throws {
        server = try await LoopbackHTTPServer.start { request in
            pages[request.path].map { .html($0) } ?? .html("not found", status: 404)
        }
        port = server.port
    }

    /// `http://127.0.0.1:{port}{path}`.
    func url(_ path: String) -> URL { server.url(path) }

    /// How many connections were accepted so far.
    var connectionCount: Int { server.connectionCount }

    /// The paths of the HTTP requests received so far.
    var requestedPaths: [String] {
        get async { await server.requestPaths }
    }

    /// The path ``barrier()`` requests.
    static let barrierPath = "/.barrier"

    /// Makes a request of its own and waits for the answer. The server counts connections as it
    /// accepts them, in the order they came, so once this is answered, every connection made
    /// before it has been counted: what ``connectionCount`` says then is final for everything
    /// before.
    func barrier() async throws {
        _ = try await RawHTTPClient.get(port: port, target: Self.barrierPath)
    }

    /// Stops accepting; the open connections close soon after.
    func stop() {
        server.close()
    }
}
