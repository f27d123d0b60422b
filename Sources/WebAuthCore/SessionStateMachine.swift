import Foundation

/// The flow of one web authentication session, with no I/O: events in, one action out.
///
/// ```
///  idle ──start──▶ listening ──listening(uri)──▶ presenting ──presented──▶ waiting
///   │                 │                            │                         │
///   │ cancel          └──────── cancel / fail / timeout / callback ──────────┴──▶ finished
///   ▼
///  cancelledBeforeStart   (start() returns false; no completion is ever delivered)
/// ```
///
/// `finished` is final, which is what makes the completion exactly-once: the only way to get a
/// ``Action/finish(_:)`` is to leave a non-final state. A callback URL counts only if it matches
/// the session's callback *and* the acceptance rule accepted it; a mismatched or unaccepted URL
/// is reported back (``Action/reject(_:)``) and the session keeps waiting.
package struct SessionStateMachine: Sendable {
    package enum State: Sendable, Equatable {
        case idle
        case listening
        case presenting(redirectURI: URL)
        case waiting(redirectURI: URL)
        case finished(Result<URL, WebAuthenticationSessionError>)
        case cancelledBeforeStart
    }

    package enum Event: Sendable, Equatable {
        /// The caller started the session.
        case start
        /// The receiver is listening (or no receiver is needed) and this is the redirect URI.
        case listening(redirectURI: URL, callback: Callback)
        /// The browser has the page.
        case presented
        /// A URL that may be the callback, from the listener or the browser. `accepted` is the
        /// session's acceptance rule applied to it.
        case callbackOffered(URL, accepted: Bool)
        /// The browser saw the person close the window.
        case closedByUser
        /// Something failed: listening, building or presenting.
        case failed(WebAuthenticationSessionError)
        /// The caller (or the task, or an interrupt) cancelled.
        case cancel
        /// The timeout ran out.
        case timedOut(Duration)
    }

    package enum Action: Sendable, Equatable {
        /// Nothing to do.
        case none
        /// Start the receiver.
        case listen
        /// Build the authorization URL with this redirect URI and present it.
        case present(redirectURI: URL)
        /// Tell the person the offered URL was not taken, and keep waiting.
        case reject(WebAuthenticationSessionError)
        /// Tear down (close the listener, dismiss the browser), then deliver this result.
        case finish(Result<URL, WebAuthenticationSessionError>)
    }

    package private(set) var state: State = .idle
    private var callback: Callback

    package init(callback: Callback) {
        self.callback = callback
    }

    /// Whether ``Event/start`` would be taken.
    package var canStart: Bool { state == .idle }

    /// Whether the session has ended, one way or the other.
    package var isFinished: Bool {
        switch state {
        case .finished, .cancelledBeforeStart: true
        default: false
        }
    }

    package mutating func handle(_ event: Event) -> Action {
        switch (state, event) {
        case (.idle, .start):
            state = .listening
            return .listen
        case (.idle, .cancel):
            state = .cancelledBeforeStart
            return .none
        case (.idle, _), (.finished, _), (.cancelledBeforeStart, _):
            return .none

        case (.listening, .listening(let redirectURI, let boundCallback)):
            callback = boundCallback
            state = .presenting(redirectURI: redirectURI)
            return .present(redirectURI: redirectURI)
        case (.presenting(let redirectURI), .presented):
            state = .waiting(redirectURI: redirectURI)
            return .none

        case (.presenting, .callbackOffered(let url, let accepted)),
            (.waiting, .callbackOffered(let url, let accepted)):
            guard callback.matchesURL(url) else {
                return .reject(.callbackMismatch("\(url.redactedForLogs) is not the callback \(callback)"))
            }
            guard accepted else {
                return .reject(.callbackMismatch("the callback was not accepted (unexpected state or parameters)"))
            }
            return finish(.success(url))

        case (_, .closedByUser):
            return finish(.failure(.canceled(.user)))
        case (_, .failed(let error)):
            return finish(.failure(error))
        case (_, .cancel):
            return finish(.failure(.canceled(.program)))
        case (_, .timedOut(let after)):
            return finish(.failure(.timedOut(after: after)))

        case (.listening, _), (.presenting, _), (.waiting, _):
            // An out-of-order event (a late `presented`, a callback before listening): ignore it.
            return .none
        }
    }

    private mutating func finish(_ result: Result<URL, WebAuthenticationSessionError>) -> Action {
        state = .finished(result)
        return .finish(result)
    }
}
