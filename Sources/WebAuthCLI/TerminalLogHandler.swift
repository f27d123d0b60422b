// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Logging
import WebAuth
import WebAuthFastPath
import WebAuthPlatform

/// How `webauth` logs (`--verbose`, the token store's warnings): one line per message on
/// standard error — time, level, label, metadata, message — with the whole line shown through
/// ``UntrustedText``, so that no logged value, wherever it came from, can steer the terminal.
///
/// ```swift
/// var logger = Logger(label: "webauth", factory: { TerminalLogHandler(label: $0) })
/// logger.logLevel = .debug
/// ```
struct TerminalLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Where lines go; standard error unless a test says otherwise.
    let descriptor: Int32
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    /// A handler for the logger `label`, writing to `descriptor`.
    init(label: String, descriptor: Int32 = Descriptor.standardError) {
        self.label = label
        self.descriptor = descriptor
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let given = event.metadata { fields.merge(given) { $1 } }
        let shownFields = fields.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        let line = "\(Date().formatted(.iso8601)) \(event.level) \(label) :\(shownFields) \(event.message)"
        StandardStreams.write(to: descriptor, Array((UntrustedText(line).displayed() + "\n").utf8))
    }
}
