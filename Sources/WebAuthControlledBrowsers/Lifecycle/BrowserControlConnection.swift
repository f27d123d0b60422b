// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

/// The protocol client that steers a launched browser — DevTools over a pipe for Chromium,
/// WebDriver BiDi over a WebSocket for Firefox — as the shared lifecycle needs it: to ask the
/// browser to quit, and to hang up.
///
/// Everything else a client does (setting up the page, intercepting navigations) is its
/// browser's own.
protocol BrowserControlConnection: Sendable {
    /// Whether commands can still be sent.
    var isOpen: Bool { get }
    /// Asks the browser to close its windows and exit (`Browser.close`, `browser.close`), waiting
    /// at most `timeout` for its answer. Failing is not an error: the process group is ended next
    /// in any case.
    func requestBrowserClose(timeout: Duration) async
    /// Closes the connection. Safe to call more than once.
    func close() async
}
