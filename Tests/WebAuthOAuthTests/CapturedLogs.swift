// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuthPlatform

/// Every log line a logger produced, with its metadata rendered, for tests that scan logs.
final class CapturedLogs: Sendable {
    private let lines = Locked<[String]>([])

    /// A logger at `trace` level that records here.
    func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    var all: [String] { lines.withLock { $0 } }

    /// The lines that contain any of `secrets`.
    func lines(containingAnyOf secrets: [String]) -> [String] {
        all.filter { line in secrets.contains { !$0.isEmpty && line.contains($0) } }
    }

    fileprivate func record(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let sink: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            sink.record("\(event.level) \(event.message) \(rendered)")
        }
    }
}
