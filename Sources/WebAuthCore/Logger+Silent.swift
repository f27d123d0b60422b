// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Logging

extension Logger {
    /// A logger that discards everything: what every `logger:` parameter of webauth defaults
    /// to, so that the library says nothing unless it is given a logger.
    public static let webAuthSilent = Logger(label: "webauth", factory: { _ in SwiftLogNoOpLogHandler() })
}
