// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization
import WebAuthCore
import WebAuthPlatform
import WebAuthProcess

/// Where a launched Firefox serves WebDriver BiDi.
///
/// Firefox has no pipe transport for WebDriver BiDi (Chromium's counterpart is
/// ``DevToolsPipe``): `--remote-debugging-port=0` makes it listen on a loopback TCP port of the
/// system's choosing and print `WebDriver BiDi listening on ws://127.0.0.1:PORT` on its standard
/// error, which goes to the browser's private output file (mode 0600 in a 0700 directory) that a
/// dedicated thread watches — never a thread of Swift's cooperative pool.
enum BiDiEndpoint {
    /// How waiting for the endpoint ended.
    enum Wait: Sendable, Hashable {
        case ready(host: String, port: Int)
        case exited
        case timedOut
        case cancelled
    }

    /// The BiDi endpoint announced in Firefox's output, if it is there and on a loopback address.
    static func parse(_ output: String) -> (host: String, port: Int)? {
        let marker = "WebDriver BiDi listening on ws://"
        guard let start = output.range(of: marker)?.upperBound else { return nil }
        let rest = output[start...].prefix { !$0.isWhitespace && $0 != "/" }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(rest[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.lowercased() == "localhost" { host = "127.0.0.1" }
        guard AuthorizationURLPolicy.isLoopback(host: host) else { return nil }
        return (host, port)
    }

    /// Waits on a dedicated thread until `outputFile` announces the endpoint, `process` exits,
    /// `timeout` passes, or the calling task is cancelled.
    static func wait(outputFile: String, process: Subprocess, timeout: Duration) async -> Wait {
        let cancelled = CancellationFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wait, Never>) in
                Thread.detachNewThread {
                    let deadline = ContinuousClock.now + timeout
                    while true {
                        let exited = process.hasExited
                        if let endpoint = parse(readPrefix(of: outputFile)) {
                            continuation.resume(returning: .ready(host: endpoint.host, port: endpoint.port))
                            return
                        }
                        if exited {
                            continuation.resume(returning: .exited)
                            return
                        }
                        if cancelled.isSet {
                            continuation.resume(returning: .cancelled)
                            return
                        }
                        if ContinuousClock.now >= deadline {
                            continuation.resume(returning: .timedOut)
                            return
                        }
                        CurrentProcess.sleep(for: .milliseconds(5))
                    }
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// The first 256 KiB of `path` as text (empty if unreadable).
    static func readPrefix(of path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 256 << 10)) ?? nil
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    /// A flag set from a cancellation handler and read by a plain thread.
    final class CancellationFlag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }
}
