// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import WebAuthPlatform
import WebAuthProcess
import WebAuthTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A program run as from a person's shell: in a session of its own whose controlling terminal
/// (`/dev/tty`) is a fresh pseudo-terminal, with standard input read from a file and standard
/// output and error on pipes — so a test tells what went to the terminal from what went to
/// the streams. `setsid --ctty` (util-linux) makes the session and takes the terminal; the
/// test reads what the program writes there (``transcript``) and types on it (``type(_:)``).
///
/// ```swift
/// let session = try TerminalSession(["/usr/bin/git", "credential", "fill"], input: "…", in: sandbox)
/// let status = try await session.process.waitForExit()
/// session.finish()
/// ```
final class TerminalSession: Sendable {
    /// The program, seen through its standard output and error.
    let process: CLIProcess
    private let terminal: PseudoTerminal
    private let reader: TerminalReader

    /// Starts `command` (an absolute path and its arguments) with `input` on standard input and
    /// the sandbox's environment; `controllingTerminal: false` starts it in a session with no
    /// terminal at all.
    init(
        _ command: [String], input: String, in sandbox: ProfileSandbox, environment: [String: String] = [:],
        controllingTerminal: Bool = true
    ) throws {
        terminal = try PseudoTerminal()
        let inputFile = sandbox.root + "/input-\(UUID().uuidString)"
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputFile))
        let redirect = #"input=$1; shift; exec "$@" <"$input""#
        do {
            process = try CLIProcess(
                (controllingTerminal ? ["--ctty"] : []) + ["--wait", "/bin/sh", "-c", redirect, "sh", inputFile]
                    + command,
                environment: sandbox.environment.merging(environment) { $1 },
                standardInput: .descriptor(terminal.secondary), executable: "/usr/bin/setsid")
        } catch {
            terminal.closeBoth()
            throw error
        }
        reader = TerminalReader(descriptor: terminal.primary)
    }

    /// Everything written to the terminal so far.
    var transcript: String { reader.text }

    /// Types `text` on the terminal, as the person would.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(terminal.primary, $0.baseAddress, $0.count) }
    }

    /// Waits until the terminal shows `text`, for at most `timeout`; returns the transcript.
    func waitForTerminal(containing text: String, timeout: Duration = .seconds(60)) async throws -> String {
        var current = ""
        let found = await eventually(within: timeout) {
            current = transcript
            return current.contains(text)
        }
        if found { return current }
        throw CLITestError("timed out waiting for '\(text)' on the terminal; got: \(transcript)")
    }

    /// Reads what the terminal still holds, stops reading and closes the terminal; call once
    /// the program has exited.
    func finish() {
        reader.stop()
        terminal.closeBoth()
    }
}

/// Reads a terminal's primary side on a thread of its own until stopped, polling so that
/// ``stop()`` ends it promptly — after reading what the terminal still holds.
private final class TerminalReader: Sendable {
    private let bytes = Locked<[UInt8]>([])
    private let stopped = Locked(false)
    private let done = DispatchSemaphore(value: 0)

    init(descriptor: Int32) {
        Thread.detachNewThread { [self] in
            defer { done.signal() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            // Once stopped, it reads what is still buffered, then ends.
            while true {
                let stopping = stopped.withLock { $0 }
                var state = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(&state, 1, stopping ? 0 : 100)
                guard ready > 0 else {
                    if stopping { return }
                    continue
                }
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    bytes.withLock { $0 += buffer[..<count] }
                } else if !(count < 0 && errno == EINTR) {
                    return
                }
            }
        }
    }

    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }

    /// Stops the thread and waits for it to end.
    func stop() {
        stopped.withLock { $0 = true }
        done.wait()
    }
}
