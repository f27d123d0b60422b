// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthFastPath
import WebAuthPlatform

/// What `webauth` tells the person, on standard error.
///
/// On a terminal, waits show a status line that redraws in place with a spinner and the
/// elapsed time (not with `TERM=dumb`), and a few words are colored — unless `NO_COLOR` is set
/// (to anything but the empty string) or `TERM` is `dumb`. When standard error is a pipe or a
/// file, every message is a plain line and nothing is colored or redrawn, so logs stay readable.
///
/// Every text given here goes through ``UntrustedText`` before it is written: whatever part of
/// a message came from a provider (an `error` code, a scope, a subject, a user code), it cannot
/// steer the terminal. The only escape sequences written are this type's own styles.
///
/// ```swift
/// let terminal = TerminalOutput()
/// let status = terminal.startStatus("Waiting for approval… (Ctrl-C cancels)")
/// // …
/// status.stop()
/// terminal.success("Signed in.")
/// ```
final class TerminalOutput: Sendable {
    /// Whether standard error is a terminal that can redraw a line (not `TERM=dumb`).
    let isInteractive: Bool
    /// Whether messages are colored.
    let usesColor: Bool
    private let descriptor: Int32
    private let state = Locked(State())

    private struct State {
        /// The status line being shown, if any: its text and when it started.
        var status: (id: Int, text: String, started: ContinuousClock.Instant)?
        var frame = 0
        var nextID = 0
    }

    /// The spinner's frames.
    static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// Reads the situation of `descriptor` (default standard error) and of `environment`.
    init(
        descriptor: Int32 = Descriptor.standardError,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.descriptor = descriptor
        let isTerminal = Terminal.isTerminal(descriptor)
        isInteractive = isTerminal && environment["TERM"] != "dumb"
        usesColor = Self.colorAllowed(isTerminal: isTerminal, environment: environment)
    }

    /// Whether colors may be used: only on a terminal, never with `NO_COLOR` set to a non-empty
    /// value (https://no-color.org) or with `TERM=dumb`.
    static func colorAllowed(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    // MARK: Lines

    /// A plain message line.
    func line(_ text: String) { write(shown(text)) }

    /// A line of `text` followed by `emphasized`, in bold on a color terminal: for what the
    /// person must read or type.
    func line(_ text: String, emphasizing emphasized: String) {
        write(shown(text) + styled(shown(emphasized), .bold))
    }

    /// A step that worked: `✔ text`, the mark green on a color terminal.
    func success(_ text: String) { write(styled("✔", .green) + " " + shown(text)) }

    /// Something the person should know: `note: text`.
    func note(_ text: String) { write(styled("note:", .yellow) + " " + shown(text)) }

    /// A failure: `error: text`, and the fix on a line of its own.
    func error(_ text: String, fix: String? = nil) {
        write(styled("error:", .red) + " " + shown(text))
        if let fix { write("  " + shown(fix)) }
    }

    /// `text` with nothing that can steer a terminal (see ``UntrustedText``).
    private func shown(_ text: String) -> String { UntrustedText(text).displayed() }

    // MARK: The status line

    /// Starts a status line: on a terminal a spinner with `text` and the elapsed seconds,
    /// redrawn until ``StatusLine/stop()``; otherwise `text` once, as a plain line.
    func startStatus(_ text: String) -> StatusLine {
        guard isInteractive else {
            write(shown(text))
            return StatusLine(terminal: self, id: nil)
        }
        let id = state.withLock { state in
            state.nextID += 1
            state.status = (state.nextID, shown(text), ContinuousClock.now)
            return state.nextID
        }
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                self?.redraw()
                try? await Task.sleep(for: .milliseconds(120))
            }
        }
        return StatusLine(terminal: self, id: id, ticker: ticker)
    }

    fileprivate func updateStatus(id: Int?, text: String) {
        guard let id else { return write(shown(text)) }
        state.withLock { state in
            guard state.status?.id == id else { return }
            state.status?.text = shown(text)
            draw(&state)
        }
    }

    fileprivate func endStatus(id: Int?) {
        guard let id else { return }
        state.withLock { state in
            guard state.status?.id == id else { return }
            state.status = nil
            emit("\r\u{1B}[2K")
        }
    }

    private func redraw() {
        state.withLock { state in
            state.frame = (state.frame + 1) % Self.frames.count
            draw(&state)
        }
    }

    /// Draws the status line over the current line; called with the state locked, so lines
    /// and frames never interleave.
    private func draw(_ state: inout State) {
        guard let status = state.status else { return }
        let seconds = (ContinuousClock.now - status.started).components.seconds
        emit("\r\u{1B}[2K" + styled(Self.frames[state.frame], .cyan) + " \(status.text) (\(seconds) s)")
    }

    // MARK: Writing

    private enum Style: String {
        case bold = "1"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
    }

    private func styled(_ text: String, _ style: Style) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Writes `text` (already made safe, styles added) and a newline, above the status line if
    /// one is showing.
    private func write(_ text: String) {
        state.withLock { state in
            let statusShown = state.status != nil
            emit((statusShown ? "\r\u{1B}[2K" : "") + text + "\n")
            if statusShown { draw(&state) }
        }
    }

    private func emit(_ text: String) { StandardStreams.write(to: descriptor, Array(text.utf8)) }
}

/// A status line shown by ``TerminalOutput/startStatus(_:)``.
final class StatusLine: Sendable {
    private let terminal: TerminalOutput
    private let id: Int?
    private let ticker: Task<Void, Never>?

    fileprivate init(terminal: TerminalOutput, id: Int?, ticker: Task<Void, Never>? = nil) {
        self.terminal = terminal
        self.id = id
        self.ticker = ticker
    }

    /// Replaces the text (on a terminal), or prints it as a new line (otherwise).
    func update(_ text: String) { terminal.updateStatus(id: id, text: text) }

    /// Removes the status line. Safe to call more than once.
    func stop() {
        ticker?.cancel()
        terminal.endStatus(id: id)
    }

    deinit { ticker?.cancel() }
}
