// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if !canImport(AuthenticationServices)
    public import Foundation
    import WebAuth

    /// A sign-in another program's session handed to this browser app — Apple's
    /// `ASWebAuthenticationSessionRequest`, on Linux.
    ///
    /// Open ``url`` (sending ``additionalHeaderFields`` with the first request, in a fresh
    /// profile when ``shouldUseEphemeralSession``), watch main-frame navigations for one that
    /// ``callback`` matches, and answer once: ``complete(withCallbackURL:)`` with that URL, or
    /// ``cancelWithError(_:)``. The requesting session checks the URL again; one that does not
    /// match ends it with an error.
    open class ASWebAuthenticationSessionRequest: NSObject, @unchecked Sendable {
        // @unchecked Sendable: the stored properties are immutable except `delegate`, a weak
        // reference read and written only under `lock`; `connection` is Sendable.

        private let connection: AuthenticationBrowserConnection
        private let lock = NSLock()
        private weak var storedDelegate: (any ASWebAuthenticationSessionRequestDelegate)?

        /// The request's callback (Apple: macOS 14.4).
        public let callback: ASWebAuthenticationSession.Callback?

        init(connection: AuthenticationBrowserConnection) {
            self.connection = connection
            self.callback = .wrapping(connection.request.callback)
            super.init()
        }

        /// Not available: requests come from sessions.
        @available(*, unavailable)
        public override init() {
            fatalError("ASWebAuthenticationSessionRequest() is unavailable")
        }

        /// Whether the request has been answered.
        var isAnswered: Bool { connection.isAnswered }

        /// The authentication page to open.
        open var url: URL { connection.request.url }

        /// The callback's custom scheme, or `nil` for an `https` callback (see ``callback``).
        open var callbackURLScheme: String? {
            let callback = connection.request.callback
            return callback.isCustomScheme ? callback.scheme : nil
        }

        /// Whether to use a browser session that shares and keeps nothing.
        open var shouldUseEphemeralSession: Bool { connection.request.prefersEphemeralSession }

        /// Header fields to send with the first request to ``url``; `nil` when there are none.
        open var additionalHeaderFields: [String: String]? {
            let fields = connection.request.additionalHeaderFields
            return fields.isEmpty ? nil : fields
        }

        /// The request's identifier, the same in the requesting session's process.
        open var uuid: UUID { connection.request.uuid }

        /// Told when the request is completed or cancelled. Held weakly.
        open var delegate: (any ASWebAuthenticationSessionRequestDelegate)? {
            get { lock.withLock { storedDelegate } }
            set { lock.withLock { storedDelegate = newValue } }
        }

        /// Hands `url` to the requesting session as its callback. Only the first answer counts.
        open func complete(withCallbackURL url: URL) {
            guard connection.complete(withCallbackURL: url) else { return }
            delegate?.authenticationSessionRequest(self, didCompleteWithCallbackURL: url)
        }

        /// Tells the requesting session the sign-in did not complete. Use
        /// ``ASWebAuthenticationSessionError/Code/canceledLogin`` when the person cancelled; the
        /// session then ends with that code. Another error ends it with
        /// ``ASWebAuthenticationSessionError/Code/presentationContextInvalid`` and the error's
        /// description. Only the first answer counts.
        open func cancelWithError(_ error: any Error) {
            let bridged = error as NSError
            let code =
                bridged.domain == ASWebAuthenticationSessionErrorDomain
                ? bridged.code : ASWebAuthenticationSessionError.Code.presentationContextInvalid.rawValue
            guard connection.cancel(code: code, message: bridged.localizedDescription) else { return }
            delegate?.authenticationSessionRequest(self, didCancelWithError: error)
        }
    }

    /// What a request tells its delegate, typically the browser app that handles it. Both
    /// methods are optional (they have empty default implementations).
    public protocol ASWebAuthenticationSessionRequestDelegate: NSObjectProtocol {
        /// The request was completed with `callbackURL`.
        func authenticationSessionRequest(
            _ authenticationSessionRequest: ASWebAuthenticationSessionRequest,
            didCompleteWithCallbackURL callbackURL: URL)
        /// The request was cancelled with `error`.
        func authenticationSessionRequest(
            _ authenticationSessionRequest: ASWebAuthenticationSessionRequest, didCancelWithError error: any Error)
    }

    extension ASWebAuthenticationSessionRequestDelegate {
        /// Does nothing.
        public func authenticationSessionRequest(
            _ authenticationSessionRequest: ASWebAuthenticationSessionRequest,
            didCompleteWithCallbackURL callbackURL: URL
        ) {}
        /// Does nothing.
        public func authenticationSessionRequest(
            _ authenticationSessionRequest: ASWebAuthenticationSessionRequest, didCancelWithError error: any Error
        ) {}
    }
#endif
