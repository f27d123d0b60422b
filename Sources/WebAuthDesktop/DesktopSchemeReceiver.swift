// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import Logging
import NIOCore
public import WebAuthCore
public import WebAuthDesktopSocket

/// Receives custom-scheme callbacks through the Linux desktop: the browser hands
/// `com.example.app:/…` to the desktop, the desktop runs `webauth-scheme-handler` (registered
/// with ``DesktopSchemeRegistry``), and the handler forwards the URL over a Unix socket to the
/// session waiting for that scheme.
///
/// ```swift
/// try DesktopSchemeRegistry().register(scheme: "com.example.app")   // once, at install time
/// let environment = SessionEnvironment(browser: SystemBrowser.desktopDefault(), receivers: [DesktopSchemeReceiver()])
/// let session = WebAuthSession(url: url, callback: .customScheme("com.example.app"), environment: environment)
/// ```
///
/// `SessionEnvironment.standard` (module WebAuth) includes one.
///
/// ## Which callbacks
/// ``canReceive(_:)`` is true for a custom-scheme callback whose scheme has webauth's
/// `.desktop` entry installed with an executable handler. It checks only those files, cheaply,
/// and does not ask `xdg-mime` whether another program has since been made the default; use
/// ``DesktopSchemeRegistry/status(scheme:)`` for that.
///
/// ## One waiting session per scheme
/// A session waits on `{scheme}.sock` in the ``CallbackSocketDirectory`` and holds
/// `{scheme}.lock` (an `flock`) while it waits. A second session for the same scheme — in this
/// process or another one of the same user — fails at start with
/// `WebAuthenticationSessionError.Code.callbackListenerFailed` saying that another sign-in is
/// waiting for that scheme: the desktop can deliver a `scheme:` URL to only one place, and
/// silently taking it away from the first session would hand its callback to the wrong
/// program. Sessions for different schemes wait side by side. The lock dies with its process,
/// so a socket file left behind by a crashed program is removed by the next session.
///
/// ## What it accepts
/// Each connection must come from the same user (`SO_PEERCRED`) and send one URL of at most
/// 64 KiB within ``Configuration/readTimeout``. The URL must parse, match the session's
/// callback and pass the session's acceptance rule (such as its `state` check); anything else
/// is refused and the session keeps waiting, so a forged URL cannot end it. The first accepted
/// URL ends the listening: the socket is removed at once, and a URL that comes later finds no
/// session. Nothing is ever kept for a later session.
public struct DesktopSchemeReceiver: CallbackReceiver {
    /// Limits for the callback socket.
    public struct Configuration: Sendable, Hashable {
        /// How long one connection may take to send its URL. Default 2 seconds.
        public var readTimeout: Duration
        /// The most connections handled at once; more are closed at once. Default 8.
        public var maxConnections: Int

        /// Creates a configuration; every parameter has the documented default.
        public init(readTimeout: Duration = .seconds(2), maxConnections: Int = 8) {
            self.readTimeout = readTimeout
            self.maxConnections = maxConnections
        }
    }

    /// Where the scheme registrations are looked up.
    public var registry: DesktopSchemeRegistry
    /// Where the callback sockets go.
    public var socketDirectory: CallbackSocketDirectory
    /// Limits for the callback socket.
    public var configuration: Configuration
    /// Where listeners log (at debug level; URLs without their query or fragment).
    public var logger: Logger

    /// Creates a receiver for the desktop described by `environment`.
    public init(
        environment: DesktopEnvironment = DesktopEnvironment(),
        configuration: Configuration = Configuration(),
        logger: Logger = .webAuthSilent
    ) {
        self.registry = DesktopSchemeRegistry(environment: environment, logger: logger)
        self.socketDirectory = CallbackSocketDirectory(environment: environment)
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether `callback` is a custom-scheme callback registered to webauth's handler.
    public func canReceive(_ callback: Callback) -> Bool {
        callback.isCustomScheme && registry.isRegistered(scheme: callback.scheme)
    }

    /// Whether a session — in this process or another one of this user — is waiting for
    /// `scheme` right now: whether its socket answers.
    ///
    /// A session starting at the same moment may not be seen yet; ``listen(for:deciding:)``
    /// is what decides, this only tells early.
    public func isWaiting(forScheme scheme: String) -> Bool {
        guard (try? socketDirectory.check()) != nil,
            let connection = try? DesktopSocketCalls.makeConnection(to: socketDirectory.socketPath(forScheme: scheme))
        else { return false }
        DesktopSocketCalls.close(connection)
        return true
    }

    /// For a custom-scheme callback another session is waiting for (``isWaiting(forScheme:)``):
    /// the reason a session for it cannot start; otherwise `nil`.
    public func unavailability(for callback: Callback) -> WebAuthenticationSessionError? {
        guard callback.isCustomScheme, isWaiting(forScheme: callback.scheme) else { return nil }
        return WebAuthenticationSessionError(
            code: .callbackListenerFailed,
            message: "another sign-in is already waiting for \(callback.scheme): callbacks; finish or cancel it first")
    }

    /// The custom scheme registered for this program (``DesktopSchemeRegistry/currentApplication``).
    ///
    /// - Throws: `WebAuthenticationSessionError.Code.noCallbackReceiver` when none is, saying how
    ///   to register one.
    public func registeredCallback() throws(WebAuthenticationSessionError) -> Callback? {
        do {
            return .customScheme(
                try registry.registeredScheme(forApplication: DesktopSchemeRegistry.currentApplication))
        } catch {
            throw .noCallbackReceiver(error.message)
        }
    }

    /// Starts listening on the scheme's socket, answering each URL a handler sends by the
    /// session's verdict; the callback an accepted verdict carries goes to the session.
    ///
    /// - Throws: `WebAuthenticationSessionError.Code.callbackListenerFailed` when another session
    ///   waits for the same scheme or the socket directory is missing, not private, or unusable;
    ///   `.invalidCallback` for a callback that is not a custom scheme.
    public func listen(
        for callback: Callback,
        deciding: @escaping @Sendable (URL) -> CallbackVerdict
    ) async throws(WebAuthenticationSessionError) -> any CallbackListener {
        guard callback.isCustomScheme else {
            throw .invalidCallback("\(callback) is not a custom-scheme callback")
        }
        let scheme = callback.scheme
        func failure(_ detail: String) -> WebAuthenticationSessionError {
            WebAuthenticationSessionError(
                code: .callbackListenerFailed, message: "cannot wait for \(scheme): callbacks: \(detail)")
        }
        do {
            try socketDirectory.prepare()
        } catch {
            throw failure(error.message)
        }

        let lockPath = socketDirectory.lockPath(forScheme: scheme)
        let lock: Int32
        switch DesktopSocketCalls.lockExclusively(lockPath) {
        case .success(let descriptor): lock = descriptor
        case .failure(.busy):
            throw failure(
                "another sign-in is already waiting for \(scheme): callbacks (one waiting session per scheme "
                    + "and user); finish or cancel it first")
        case .failure(.failed(let reason)):
            throw failure(reason.description)
        }

        // Holding the lock, whatever socket file is there is stale: its session has ended.
        let socketPath = socketDirectory.socketPath(forScheme: scheme)
        let pendingPath = socketDirectory.pendingSocketPath(forScheme: scheme)
        if DesktopSocketCalls.removeFile(socketPath) {
            logger.debug("removed a stale callback socket", metadata: ["path": "\(socketPath)"])
        }
        let listening: UnixSocketServer
        do {
            listening = try await UnixSocketServer.listen(
                at: socketPath, pendingPath: pendingPath, limits: SchemeSocketServer.limits(configuration),
                logger: logger
            ).get()
        } catch {
            DesktopSocketCalls.close(lock)
            throw failure("\(error)")
        }
        let server = SchemeSocketServer(
            server: listening, lock: lock, socketPath: socketPath, callback: callback, deciding: deciding,
            logger: logger)
        server.start()
        logger.debug("waiting for callbacks", metadata: ["scheme": "\(scheme)", "socket": "\(socketPath)"])
        return SchemeCallbackListener(
            redirectURI: callback.redirectURI, callback: callback,
            callbacks: server.callbacks, server: server)
    }
}

/// A session's wait on its scheme's socket: what ``DesktopSchemeReceiver/listen(for:deciding:)``
/// returns. Dropping it without ``close()`` stops the server too.
final class SchemeCallbackListener: CallbackListener {
    let redirectURI: URL
    let callback: Callback
    let callbacks: AsyncStream<ReceivedCallback>
    private let server: SchemeSocketServer

    init(redirectURI: URL, callback: Callback, callbacks: AsyncStream<ReceivedCallback>, server: SchemeSocketServer) {
        self.redirectURI = redirectURI
        self.callback = callback
        self.callbacks = callbacks
        self.server = server
    }

    /// Stops accepting, removes the socket, releases the lock, and returns once all of that is done.
    func close() async {
        await server.stop()
    }

    deinit {
        server.requestStop()
    }
}
