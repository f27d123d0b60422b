// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    public import WebAuth

    /// The door through which a browser app receives other programs' sign-ins — Apple's
    /// `ASWebAuthenticationSessionWebBrowserSessionManager`, on Linux.
    ///
    /// ```swift
    /// // At launch:
    /// ASWebAuthenticationSessionWebBrowserSessionManager.shared.sessionHandler = handler
    /// if ASWebAuthenticationSessionWebBrowserSessionManager.shared.wasLaunchedByAuthenticationServices {
    ///     // started for a request: no window of our own to open
    /// }
    /// ```
    ///
    /// ## Linux specifics
    /// - The program is made the person's web-authentication browser with
    ///   `webauth browser register PATH --name NAME` (its capabilities as flags), which writes a
    ///   desktop entry, as an `Info.plist` declares it on macOS.
    /// - Setting ``sessionHandler`` starts listening on a 0600 Unix socket in the private socket
    ///   directory (`$XDG_RUNTIME_DIR/webauth`); sessions of this user hand their requests there,
    ///   starting the program when nothing listens. Setting it to `nil` stops listening. If the
    ///   socket cannot be made (another instance listens), ``listeningError`` says why.
    /// - The handler's methods are called on an arbitrary thread.
    open class ASWebAuthenticationSessionWebBrowserSessionManager: NSObject, @unchecked Sendable {
        // @unchecked Sendable: every mutable stored property is read and written only with
        // `lock` held; `wasLaunchedByAuthenticationServices` is immutable.

        /// The manager.
        public static let shared = ASWebAuthenticationSessionWebBrowserSessionManager()

        /// Whether the program was started to handle a request (rather than by the person).
        public let wasLaunchedByAuthenticationServices: Bool

        private let lock = NSLock()
        private var handler: (any ASWebAuthenticationSessionWebBrowserSessionHandling)?
        private var server: AuthenticationBrowserServer?
        private var requests: [UUID: ASWebAuthenticationSessionRequest] = [:]
        private var lastListeningError: AuthenticationBrowserError?

        private override init() {
            wasLaunchedByAuthenticationServices =
                ProcessInfo.processInfo.environment[AuthenticationBrowser.launchedVariable] == "1"
            super.init()
        }

        /// The object that handles requests. Setting one starts listening for them; `nil` stops.
        open var sessionHandler: (any ASWebAuthenticationSessionWebBrowserSessionHandling)! {
            get { lock.withLock { handler } }
            set {
                let (stopping, starting): (AuthenticationBrowserServer?, Bool) = lock.withLock {
                    handler = newValue
                    if newValue == nil {
                        defer { server = nil }
                        return (server, false)
                    }
                    return (nil, server == nil)
                }
                stopping?.stop()
                if starting { listen() }
            }
        }

        /// Why listening for requests failed, if it did (Linux only).
        open var listeningError: AuthenticationBrowserError? { lock.withLock { lastListeningError } }

        private func listen() {
            let handlers = AuthenticationBrowserServer.Handler(
                begin: { [weak self] connection in self?.begin(connection) },
                cancel: { [weak self] connection in self?.cancel(connection) })
            do {
                let started = try AuthenticationBrowserServer.start(handler: handlers)
                let unwanted: AuthenticationBrowserServer? = lock.withLock {
                    guard handler != nil, server == nil else { return started }
                    server = started
                    lastListeningError = nil
                    return nil
                }
                unwanted?.stop()
            } catch {
                lock.withLock { lastListeningError = error }
            }
        }

        private func begin(_ connection: AuthenticationBrowserConnection) {
            let request = ASWebAuthenticationSessionRequest(connection: connection)
            let handler = lock.withLock {
                // Requests are kept only until answered, so that `cancel(_:)` gets the object
                // `begin(_:)` got; answered ones are dropped here.
                requests = requests.filter { !$0.value.isAnswered }
                requests[request.uuid] = request
                return self.handler
            }
            guard let handler else {
                request.cancelWithError(ASWebAuthenticationSessionError(.presentationContextInvalid))
                return
            }
            handler.begin(request)
        }

        private func cancel(_ connection: AuthenticationBrowserConnection) {
            let (request, handler) = lock.withLock {
                (requests.removeValue(forKey: connection.request.uuid), self.handler)
            }
            if let request { handler?.cancel(request) }
        }
    }
#endif
