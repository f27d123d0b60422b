// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
public import NIOCore
public import NIOPosix
public import WebAuthCore

/// Receives a loopback callback with a tiny HTTP listener on `127.0.0.1` or `::1`, as RFC 8252
/// §7.3 describes for native apps.
///
/// ```swift
/// let environment = SessionEnvironment(browser: myBrowser, receivers: [LoopbackReceiver()])
/// ```
///
/// The listener binds only the callback's loopback address (never `0.0.0.0`), on the callback's
/// port or, for port 0, on a port the system picks. Its redirect URI is
/// `http://127.0.0.1:{port}{path}` (or `http://[::1]:{port}{path}`).
///
/// ## What it answers
///
/// Every connection carries one request and is then closed (`Connection: close`).
///
/// | Request | Answer | Session |
/// |---|---|---|
/// | `GET` of the callback path, accepted by the session | 200, "Signed in" page (or the failure page when the URL has `error`) | receives the accepted callback; the listener closes |
/// | `GET` of the callback path, not accepted (wrong `state`) | 400, "not expected" page | keeps waiting |
/// | `GET` of the callback path from another user's program (see "Who may send the callback") | 403 | keeps waiting |
/// | another path (`/favicon.ico`, `/callback/`) | 404 | keeps waiting |
/// | `Host` missing or not `127.0.0.1:PORT` / `[::1]:PORT` / `localhost:PORT` | 400 | keeps waiting |
/// | a method other than `GET` or `HEAD` | 405 | keeps waiting |
/// | a body, an absolute-form target, malformed bytes | 400 | keeps waiting |
/// | a head over ``Configuration/maxHeaderBytes`` | 431 | keeps waiting |
/// | no complete head within ``Configuration/readTimeout`` | connection closed | keeps waiting |
///
/// Pages are self-contained HTML without scripts or external resources, served with
/// `Cache-Control: no-store`, `Referrer-Policy: no-referrer` and a `Content-Security-Policy`
/// that forbids loading anything. The authorization code, `state` and every other parameter of
/// the callback URL never appear on a page; an OAuth `error` and `error_description` do,
/// HTML-escaped.
///
/// ## Who may send the callback
///
/// Any local user can connect to a loopback port, and the authorization URL (with its `state`
/// and the listener's port) is on the browser's command line, which any user can read. So
/// before a request is taken as the callback, the listener asks the kernel's socket table who
/// owns the connection's other end (on Linux: `NETLINK_SOCK_DIAG`, else `/proc/net/tcp`). It
/// answers 403 and keeps waiting when that socket belongs to another user (neither ours nor
/// root), or when its program has already closed it (the kernel no longer says whose it was).
/// A browser running as the person, `ssh -L` and an editor's port forwarding connect as the
/// person; a connection relayed from outside the kernel (WSL2's localhost forwarding) has no
/// local socket and is accepted.
///
/// ## Limits
///
/// On Linux a connection that has sent nothing yet is not the listener's: it waits in the
/// kernel (`TCP_DEFER_ACCEPT`) until its first byte, or for about ``Configuration/readTimeout``
/// (the kernel counts it in retransmissions of its handshake reply: about 7 seconds for the
/// default 5), after which it is accepted as any other. Idle sockets thus cost the listener
/// nothing, and the browser, whose request follows its connection at once, is not kept waiting
/// behind them.
///
/// At most ``Configuration/maxConnections`` connections are open at once. When one more
/// arrives, one is closed to make room: the oldest that is already answered and only lingering
/// for the client to close, or else the oldest still waiting for its request head. Only if
/// every open connection is in the middle of being answered is the new connection refused. A
/// flood of sockets that send a little and stall therefore cannot lock out the browser either;
/// each head is also limited to ``Configuration/maxHeaderBytes`` and
/// ``Configuration/readTimeout``.
///
/// An answer closes its connection at once when nothing followed the request head. A
/// connection that announced a body, sent bytes after its head or sent no valid head at all
/// has its output shut down instead, and lingers until its client closes or the read timeout
/// passes, so that the unread bytes cannot make the kernel reset it before the client has read
/// the answer.
///
/// All the state of one listener lives on a single SwiftNIO event loop, so it needs no locks.
public struct LoopbackReceiver: CallbackReceiver {
    /// A page the listener shows in the browser: a title and one sentence, both plain text
    /// (they are HTML-escaped).
    public struct Page: Sendable, Hashable {
        /// The page's title and heading.
        public var title: String
        /// The sentence under the heading.
        public var message: String

        /// Creates a page from plain text.
        public init(title: String, message: String) {
            self.title = title
            self.message = message
        }

        /// "Signed in — you can close this window and return to the app."
        public static let signedIn = Page(
            title: "Signed in", message: "Signed in — you can close this window and return to the app.")
        /// "Sign-in failed", for a callback that carries an OAuth `error`.
        public static let signInFailed = Page(
            title: "Sign-in failed",
            message: "The sign-in did not complete. You can close this window and return to the app.")
        /// "This sign-in response was not expected", for a callback the session did not accept.
        public static let unexpectedResponse = Page(
            title: "Sign-in failed",
            message: "This sign-in response was not expected. Close this window and try again from the app.")
    }

    /// Limits and pages of a loopback listener.
    public struct Configuration: Sendable, Hashable {
        /// The largest request head accepted, in bytes: the request line, the header fields and
        /// the empty line after them. Larger heads are answered with 431. Default 8 KiB.
        public var maxHeaderBytes: Int
        /// How long a connection may take to send its complete request head before it is closed
        /// without an answer; this defeats slow-loris clients. It also bounds how long an
        /// answered connection lingers for the client to close, and (on Linux, about) how long a
        /// connection that sends nothing waits in the kernel before the listener accepts it.
        /// Default 5 seconds.
        public var readTimeout: Duration
        /// The most connections open at once; see "Limits" on ``LoopbackReceiver``. Default 128.
        public var maxConnections: Int
        /// The page shown when the callback is received. Default ``Page/signedIn``.
        public var successPage: Page
        /// The page shown when the received callback carries an OAuth `error`; the error and
        /// its description are added below it. Default ``Page/signInFailed``.
        public var failurePage: Page
        /// The page shown, with status 400, for a callback the session did not accept (for
        /// example one with the wrong `state`). Default ``Page/unexpectedResponse``.
        public var rejectedPage: Page

        /// Creates a configuration; every parameter has the documented default.
        public init(
            maxHeaderBytes: Int = 8 * 1024,
            readTimeout: Duration = .seconds(5),
            maxConnections: Int = 128,
            successPage: Page = .signedIn,
            failurePage: Page = .signInFailed,
            rejectedPage: Page = .unexpectedResponse
        ) {
            self.maxHeaderBytes = maxHeaderBytes
            self.readTimeout = readTimeout
            self.maxConnections = maxConnections
            self.successPage = successPage
            self.failurePage = failurePage
            self.rejectedPage = rejectedPage
        }
    }

    /// The limits and pages.
    public let configuration: Configuration
    let eventLoopGroup: any EventLoopGroup
    let logger: Logger
    /// Who owns the client's end of a connection: the kernel's socket table, unless a test
    /// says otherwise.
    let peerSockets: any PeerSocketOwnerLookup

    /// Creates a receiver.
    ///
    /// - Parameters:
    ///   - configuration: Limits and pages. Default ``Configuration/init(maxHeaderBytes:readTimeout:maxConnections:successPage:failurePage:rejectedPage:)``.
    ///   - eventLoopGroup: Where listeners run; each listener uses one event loop of it.
    ///     Default `MultiThreadedEventLoopGroup.singleton`.
    ///   - logger: Where to log, never with a query string: at debug and trace levels, and at
    ///     warning for a callback refused because another user's program sent it.
    ///     Default: logs nothing.
    public init(
        configuration: Configuration = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = .webAuthSilent
    ) {
        self.init(
            configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger,
            peerSockets: KernelSocketTable())
    }

    /// Creates a receiver that asks `peerSockets`, not the kernel, who owns the client's end of
    /// a connection.
    package init(
        configuration: Configuration = .init(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = .webAuthSilent,
        peerSockets: any PeerSocketOwnerLookup
    ) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.peerSockets = peerSockets
    }

    /// Whether `callback` is a loopback callback.
    public func canReceive(_ callback: Callback) -> Bool {
        callback.isLoopback
    }

    /// Binds the callback's loopback address and port and starts answering requests, each
    /// callback request by the session's verdict, asked once. The failure page for an OAuth
    /// `error` reads it from the accepted callback's parameters, and the accepted callback is
    /// what the listener yields: the URL is read once, by the verdict.
    ///
    /// - Returns: A listener whose ``CallbackListener/redirectURI`` carries the bound port and
    ///   whose ``CallbackListener/callbacks`` yields the callback of the first accepted request.
    /// - Throws: ``WebAuthenticationSessionError/Code/callbackListenerFailed`` when the address
    ///   cannot be bound (for example the port is busy), with
    ///   ``WebAuthenticationSessionError/port`` set to the requested port unless it was 0;
    ///   ``WebAuthenticationSessionError/Code/invalidCallback`` when the callback is not a
    ///   loopback callback with a path starting with `/` and a port in 0…65535.
    public func listen(
        for callback: Callback,
        deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        guard let endpoint = callback.loopbackEndpoint else {
            throw .invalidCallback("\(callback) is not a loopback callback")
        }
        guard endpoint.path.hasPrefix("/"), !endpoint.path.contains("?"), !endpoint.path.contains("#") else {
            throw .invalidCallback("a loopback callback path must start with '/' and have no query or fragment")
        }
        guard (0...65535).contains(endpoint.port) else {
            throw .invalidCallback("a loopback callback port must be in 0…65535, not \(endpoint.port)")
        }
        return try await LoopbackListener.start(
            callback: callback, endpoint: endpoint, decide: deciding,
            configuration: configuration, peerSockets: peerSockets, eventLoop: eventLoopGroup.next(), logger: logger)
    }
}
