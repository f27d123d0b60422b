// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuth
import WebAuthFastPath
import WebAuthPlatform

/// What `webauth` writes: results on standard output (plain or JSON), people's messages on
/// standard error — the one way commands print text that may hold outside text (a provider's
/// words, a desktop entry's or a browser program's name, a path): every line goes through
/// ``UntrustedText``, and JSON through ``terminalSafe(json:)``.
struct CommandOutput: Sendable {
    /// Whether results (and errors) go to standard output as JSON.
    let json: Bool

    func progress(_ progress: SessionProgress) {
        switch progress.phase {
        case .listening:
            if let redirectURI = progress.redirectURI {
                note("Listening for the callback at \(redirectURI.absoluteString)")
            }
        case .opening where progress.browserName != TerminalPresenter.browserName:
            note("Opening the sign-in page with \(progress.browserName ?? "the browser")…")
        case .waiting where progress.browserName != TerminalPresenter.browserName:
            note("Waiting for the browser to come back… (Ctrl-C cancels)")
        case .waiting:
            note("Waiting… (Ctrl-C cancels)")
        case .notice:
            if let message = progress.message { note("note: \(message)") }
        default:
            break
        }
    }

    func success(callbackURL: URL, redirectURI: URL?) {
        if json {
            var object: [String: String] = ["callback_url": callbackURL.absoluteString]
            object["redirect_uri"] = redirectURI?.absoluteString
            emit(object)
        } else {
            StandardStreams.write(
                to: Descriptor.standardOutput,
                Array((UntrustedText(callbackURL.absoluteString).displayed() + "\n").utf8))
        }
    }

    func failure(_ error: WebAuthenticationSessionError, status: Int32) {
        note("error: \(error.message)")
        guard json else { return }
        var object: [String: Any] = [
            "code": error.code.description, "code_number": error.code.rawValue, "message": error.message,
            "exit_status": Int(status),
        ]
        object["cancellation_reason"] = error.cancellationReason?.description
        object["port"] = error.port
        emit(["error": object])
    }

    /// Reports a token command's failure: `error:` and the fix on standard error; with `--json`
    /// also `{"error": {"code", "message", "fix", "exit_status"}}` on standard output.
    func failure(_ failure: CommandFailure, terminal: TerminalOutput) {
        terminal.error(failure.message, fix: failure.fix)
        guard json else { return }
        var object: [String: Any] = [
            "code": failure.code, "message": failure.message, "exit_status": Int(failure.status),
        ]
        object["fix"] = failure.fix
        emit(["error": object])
    }

    /// Writes `object` as one line of JSON (sorted keys) on standard output. Values stay exact;
    /// see ``terminalSafe(json:)`` for how they are written.
    func emit(_ object: [String: Any]) {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        let json = Self.terminalSafe(json: String(decoding: data, as: UTF8.self))
        StandardStreams.write(to: Descriptor.standardOutput, Array((json + "\n").utf8))
    }

    /// `json` with every character ``UntrustedText`` would not show — DEL, C1 controls, bidi
    /// and other format characters, line separators, which JSON allows raw in strings — written
    /// as `\uXXXX` escapes. The JSON value is the same, byte for byte once parsed, but nothing in
    /// the text can steer a terminal it is printed on. Outside strings JSON has only ASCII
    /// punctuation, so every such character is inside a string, where the escape is valid.
    static func terminalSafe(json: String) -> String {
        var result = ""
        for scalar in json.unicodeScalars {
            if UntrustedText.isShowable(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for unit in String(scalar).utf16 { result += "\\u" + String(format: "%04x", unit) }
            }
        }
        return result
    }

    /// Writes `text` on standard output, each of its lines with nothing that can steer a
    /// terminal (see ``UntrustedText``).
    func result(_ text: String) {
        StandardStreams.write(to: Descriptor.standardOutput, Array((Self.shown(lines: text) + "\n").utf8))
    }

    /// Writes `bytes` on standard output as they are, for another program to read: git's
    /// credential answer, client-go's `ExecCredential`, an API's response body, a token. Only
    /// for bytes whose form a protocol fixes, or whose characters were checked already (a stored
    /// token holds only `%x20-7E`); text for people goes through ``result(_:)``.
    func exact(_ bytes: some Sequence<UInt8>) {
        StandardStreams.write(to: Descriptor.standardOutput, Array(bytes))
    }

    /// Writes `message` on standard error, each of its lines made safe as in ``result(_:)``.
    func note(_ message: String) {
        StandardStreams.write(to: Descriptor.standardError, Array((Self.shown(lines: message) + "\n").utf8))
    }

    /// `text` with each line (the newlines kept) shown as ``UntrustedText``.
    static func shown(lines text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { UntrustedText(String($0)).displayed() }
            .joined(separator: "\n")
    }
}
