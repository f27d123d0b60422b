// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Logging

/// Shows what the token store logs — a fallback from the keyring to files, a token directory
/// made private — as the commands' own notes (`note: …` on standard error), its metadata left
/// out: the messages say all a person needs.
///
/// ```swift
/// var logger = Logger(label: "webauth.tokenstore", factory: { _ in NoteLogHandler() })
/// logger.logLevel = .warning
/// ```
struct NoteLogHandler: LogHandler {
    /// Where the notes go.
    let terminal: TerminalOutput
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    /// A handler writing to `terminal`.
    init(terminal: TerminalOutput = TerminalOutput()) {
        self.terminal = terminal
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        terminal.note(event.message.description)
    }
}
