// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
public import WebAuthCore
import WebAuthPlatform

/// "No display": prints the authorization URL for the person to open on any device, and takes
/// the URL the browser ended on when the person pastes it.
///
/// This is what a session uses over SSH, in a container, or with `--no-browser`. A loopback
/// listener keeps running alongside, so a browser on the same machine (or behind an SSH port
/// forward) still completes the session by itself; pasting is the fallback for everything else.
/// Given the person's ``sshDestination``, it also prints the `ssh -L` command that forwards the
/// listener's port, already open, to their own computer.
///
/// ```swift
/// let terminal = TerminalPresenter()                       // prints to stderr, reads stdin
/// let quiet = TerminalPresenter(input: nil) { print($0) }  // print only, no pasting
/// let remote = TerminalPresenter(sshDestination: "alice@192.0.2.7")
/// ```
public struct TerminalPresenter: Browser {
    /// The file descriptor pasted URLs are read from, or `nil` to not read any.
    public var input: Int32?
    /// Where instructions are written, one message per call.
    public var output: @Sendable (String) -> Void
    /// How the person's own computer reaches this one over SSH (`alice@192.0.2.7`), when they
    /// signed in to it that way (`SignInSurroundings.sshDestination`): a loopback redirect then
    /// comes with the `ssh -N -L PORT:127.0.0.1:PORT` line to run there, so that their browser
    /// finishes the sign-in by itself.
    public var sshDestination: String?

    /// Creates a terminal presenter.
    ///
    /// - Parameters:
    ///   - input: The descriptor to read pasted URLs from (default standard input), or `nil`.
    ///   - sshDestination: How the person's computer reaches this one over SSH, or `nil`.
    ///   - output: Writes a message for the person (default: standard error).
    public init(
        input: Int32? = 0, sshDestination: String? = nil,
        output: @escaping @Sendable (String) -> Void = TerminalPresenter.standardError
    ) {
        self.input = input
        self.sshDestination = sshDestination
        self.output = output
    }

    /// Writes `message` and a newline to standard error.
    public static let standardError: @Sendable (String) -> Void = { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// The name every terminal presenter has, ``name``: `terminal`.
    public static let browserName = "terminal"

    /// `terminal` (``browserName``).
    public var name: String { Self.browserName }

    /// ``BrowserCapabilities/pastedCallback`` when it reads input; nothing otherwise.
    public var capabilities: BrowserCapabilities { input == nil ? [] : [.pastedCallback] }

    /// Prints the URL and starts reading pasted lines.
    public func present(_ request: BrowserRequest) async throws(WebAuthenticationSessionError)
        -> any BrowserPresentation
    {
        let url = try AuthorizationURLPolicy.validate(request.url)
        var lines = ["Open this URL in a browser to sign in:", "", "    \(url)", ""]
        if let forward = request.redirectURI.flatMap(portForward) {
            lines.append("Over SSH, a browser on your own computer can finish this: first run there")
            lines.append(contentsOf: ["", "    \(forward)", ""])
        }
        if input != nil {
            let destination = request.redirectURI.map { " (\($0.redactedForLogs))" } ?? ""
            lines.append(
                "When you have signed in, the browser is sent back\(destination). If that page does not load, "
                    + "copy the address from the browser's address bar, paste it here and press Enter.")
        }
        output(lines.joined(separator: "\n"))
        guard let input else { return PastedLines.silent }
        return PastedLines(reading: input, output: output)
    }

    /// `ssh -N -L PORT:HOST:PORT DESTINATION` for a loopback `http` redirect URI with a port,
    /// given ``sshDestination``; `nil` otherwise.
    func portForward(_ redirectURI: URL) -> String? {
        guard let sshDestination, redirectURI.scheme?.lowercased() == "http", let port = redirectURI.port,
            let host = redirectURI.host(percentEncoded: false), let loopback = LoopbackName(host: host)
        else { return nil }
        let target =
            switch loopback {
            case .ipv6: "[::1]"
            case .localhost: "localhost"
            case .ipv4(let address): address
            }
        return "ssh -N -L \(port):\(target):\(port) \(sshDestination)"
    }
}

/// Reads lines from a descriptor on a thread of its own that polls, so that dismissing stops it
/// promptly instead of leaving a thread blocked in `read`; offers each URL as a callback.
private final class PastedLines: BrowserPresentation {
    let events: AsyncStream<BrowserEvent>
    private let continuation: AsyncStream<BrowserEvent>.Continuation
    private let stopped = Locked(false)

    /// The longest line kept; a longer paste is not a callback URL.
    private static let maximumLineLength = 64 * 1024

    static var silent: PastedLines { PastedLines() }

    private init() {
        (events, continuation) = AsyncStream.makeStream(of: BrowserEvent.self)
    }

    convenience init(reading descriptor: Int32, output: @escaping @Sendable (String) -> Void) {
        self.init()
        let continuation = self.continuation
        // The thread holds this object until `dismiss()` stops it, within one poll interval.
        Thread.detachNewThread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !self.stopped.withLock({ $0 }) {
                guard let ready = try? Descriptor.waitUntilReadable([descriptor], timeout: .milliseconds(100)) else {
                    return  // the descriptor failed: nothing more can be pasted; the listener goes on
                }
                if !ready[0] { continue }
                let count = (try? Descriptor.read(descriptor, into: &buffer)) ?? -1
                // End of input or an error: nothing more can be pasted; the listener goes on.
                guard count > 0 else { return }
                pending += buffer[..<count]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    Self.offer(line, to: continuation, output: output)
                }
                if pending.count > Self.maximumLineLength { pending.removeAll() }
            }
        }
    }

    private static func offer(
        _ line: String, to continuation: AsyncStream<BrowserEvent>.Continuation, output: (String) -> Void
    ) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        if let url = URL(string: trimmed), url.scheme != nil {
            continuation.yield(.callback(url))
        } else {
            output("That is not a URL. Paste the whole address from the browser's address bar.")
        }
    }

    func dismiss() async {
        stopped.withLock { $0 = true }
        continuation.finish()
    }
}
