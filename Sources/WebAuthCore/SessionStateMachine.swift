// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

#if canImport(FoundationEssentials)
    package import FoundationEssentials
#else
    package import Foundation
#endif

/// The flow of one web authentication session, with no I/O: events in, one action out.
///
/// ```
///  idle ──start──▶ listening ──listener ready──▶ presenting ──page ready──▶ waiting
///   │                 │                              │                        │
///   │ cancel          └──── cancel / fail / timeout / accepted callback ──────┴──▶ closing ──▶ finished
///   ▼
///  cancelledBeforeStart   (start() returns false; no completion is ever delivered)
/// ```
///
/// The states own what the session holds — the `Listener` (callback receiver), the open
/// browser page (`Presentation`) and the callers waiting for the result (`Waiter`) — and the
/// actions tell the owner what to do with them: present, watch, close and dismiss, deliver.
/// The owner performs the actions and reports the outcome of each step back as an event; it
/// keeps no resource of its own. This is the shape of async-http-client's request state
/// machines, and it is why the machine is generic: the session instantiates it with its
/// protocols, the tests with plain values.
///
/// - **Steps.** `listening` means the listen step is under way and `presenting` that the
///   present step is; the owner ends each with exactly one event
///   (``Event/listenerReady(_:callback:)``, ``Event/noListenerNeeded(callback:)`` or
///   ``Event/listenFailed(_:)``;
///   ``Event/presentationReady(_:)`` or ``Event/presentFailed(_:)``).
/// - **Exactly once.** Leaving a running state goes to `closing`, whose first action is
///   ``Action/tearDown(close:dismiss:)`` for what the state held (when it held nothing and
///   nothing is under way, it delivers at once). A step still under way ends later; what it
///   produced comes back in another ``Action/tearDown(close:dismiss:)`` — a listener that
///   arrives after cancellation is closed, with no drain loop. Only when nothing is under way
///   and the owner has reported ``Event/tornDown`` does the machine say
///   ``Action/deliver(_:to:)``, once, and become `finished`, which is final.
/// - **Acceptance.** Every URL is decided once, by the one ``CallbackAcceptance``, pinned to
///   the redirect URI of the listener once it is ready. A listener asks ``decide(_:)``, answers
///   its request by the verdict, and hands back the ``ReceivedCallback`` an accepted verdict
///   carries (``Event/callbackReceived(_:)``): the machine takes that value as the result, so
///   the URL is neither read nor decided again. Only a callback that carries this machine's mark
///   (``ReceivedCallback/acceptedBy``, put on by its verdict and cleared by any change) is taken
///   so; any other is decided as an offered URL is. A URL a browser offers
///   (``Event/callbackOffered(_:)``) is decided when offered; a refused one is answered with
///   ``Action/reject(_:)`` and the session keeps waiting. Whichever callback comes first ends
///   the session; later ones find it closing.
package struct SessionStateMachine<Listener: Sendable, Presentation: Sendable, Waiter: Sendable>: Sendable {
    /// What the session delivers.
    package typealias Outcome = Result<ReceivedCallback, WebAuthenticationSessionError>

    package enum State: Sendable {
        case idle(waiters: [Waiter])
        /// The listen step is under way.
        case listening(waiters: [Waiter])
        /// The present step is under way.
        case presenting(listener: Listener?, redirectURI: URL, waiters: [Waiter])
        /// The page is open; waiting for the callback.
        case waiting(listener: Listener?, presentation: Presentation, redirectURI: URL, waiters: [Waiter])
        /// The result is known; the owner is tearing down, and a step may still be under way.
        case closing(Outcome, redirectURI: URL?, stepUnderWay: Bool, waiters: [Waiter])
        case finished(Outcome, redirectURI: URL?)
        case cancelledBeforeStart
    }

    package enum Event: Sendable {
        /// The caller started the session; `acceptsCallback` is its extra test for callback
        /// URLs, `acceptsReceived` the same on the callback with its parameters read.
        case start(
            acceptsCallback: (@Sendable (URL) -> Bool)?,
            acceptsReceived: (@Sendable (ReceivedCallback) -> Bool)? = nil)
        /// The listen step ended with a listener, bound to `callback`; the redirect URI is the
        /// bound callback's ``Callback/redirectURI``.
        case listenerReady(Listener, callback: Callback)
        /// The listen step ended without a listener: the browser itself delivers the callback.
        case noListenerNeeded(callback: Callback)
        /// The listen step failed (no plan, no listener).
        case listenFailed(WebAuthenticationSessionError)
        /// The present step ended with the page open.
        case presentationReady(Presentation)
        /// The present step failed (a bad authorization URL, a browser that did not start).
        case presentFailed(WebAuthenticationSessionError)
        /// A URL that may be the callback, from the browser: decided when offered.
        case callbackOffered(URL)
        /// The callback a listener received, as the accepted verdict of ``decide(_:)`` carried
        /// it: taken as it is.
        case callbackReceived(ReceivedCallback)
        /// The browser saw the person close the window.
        case closedByUser
        /// The open page failed.
        case browserFailed(WebAuthenticationSessionError)
        /// The caller (or the task, or an interrupt) cancelled.
        case cancel
        /// The timeout ran out.
        case timedOut(Duration)
        /// The owner has performed the last ``Action/tearDown(close:dismiss:)``.
        case tornDown
    }

    package enum Action: Sendable {
        /// Nothing to do.
        case none
        /// Run the listen step.
        case listen
        /// Read the callbacks of `watching` (the new listener, if any), then run the present
        /// step: build the authorization URL with `redirectURI` and open it for `callback`.
        case present(redirectURI: URL, callback: Callback, watching: Listener?)
        /// Read what the open page reports.
        case watch(Presentation, redirectURI: URL)
        /// Tell the person the offered URL was not taken, and keep waiting.
        case reject(WebAuthenticationSessionError)
        /// Close the listener and dismiss the page given, then report ``Event/tornDown``.
        case tearDown(close: Listener?, dismiss: Presentation?)
        /// Hand the result to these waiters (and the completion handler): the session is over.
        case deliver(Outcome, to: [Waiter])
    }

    package private(set) var state: State = .idle(waiters: [])
    /// The rule every offered URL goes through; listeners answer requests by it too.
    package private(set) var acceptance: CallbackAcceptance

    /// The mark this machine's verdicts put on the callbacks they accept
    /// (``ReceivedCallback/acceptedBy``): a callback handed back with it is taken as it is.
    package let identity: UInt64

    /// A machine for `callback`; `identity` is the mark of its accepted callbacks, a random one
    /// unless a test gives it.
    package init(callback: Callback, identity: UInt64 = .random(in: 1 ... .max)) {
        self.acceptance = CallbackAcceptance(callback: callback)
        self.identity = identity
    }

    /// Whether ``Event/start`` would be taken.
    package var canStart: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Whether the result has been delivered (or the session was cancelled before it started).
    package var isFinished: Bool {
        switch state {
        case .finished, .cancelledBeforeStart: true
        default: false
        }
    }

    /// The redirect URI, once known.
    package var redirectURI: URL? {
        switch state {
        case .idle, .listening, .cancelledBeforeStart: nil
        case .presenting(_, let redirectURI, _), .waiting(_, _, let redirectURI, _): redirectURI
        case .closing(_, let redirectURI, _, _), .finished(_, let redirectURI): redirectURI
        }
    }

    /// Adds a caller that waits for the result.
    ///
    /// - Returns: The result at once when the session is over, else `nil`: the waiter is kept
    ///   and handed back in ``Action/deliver(_:to:)``.
    package mutating func addWaiter(_ waiter: Waiter) -> Outcome? {
        switch state {
        case .idle(let waiters):
            state = .idle(waiters: waiters + [waiter])
        case .listening(let waiters):
            state = .listening(waiters: waiters + [waiter])
        case .presenting(let listener, let redirectURI, let waiters):
            state = .presenting(listener: listener, redirectURI: redirectURI, waiters: waiters + [waiter])
        case .waiting(let listener, let presentation, let redirectURI, let waiters):
            state = .waiting(
                listener: listener, presentation: presentation, redirectURI: redirectURI, waiters: waiters + [waiter])
        case .closing(let outcome, let redirectURI, let stepUnderWay, let waiters):
            state = .closing(outcome, redirectURI: redirectURI, stepUnderWay: stepUnderWay, waiters: waiters + [waiter])
        case .finished(let outcome, _):
            return outcome
        case .cancelledBeforeStart:
            return .failure(.cancelled(.program))
        }
        return nil
    }

    package mutating func handle(_ event: Event) -> Action {
        // A callback handed back without this machine's mark — made by a receiver, or changed
        // since the verdict — is decided as a browser's offered URL is.
        if case .callbackReceived(let received) = event, received.acceptedBy != identity {
            return handle(.callbackOffered(received.url))
        }
        switch state {
        case .idle(let waiters):
            switch event {
            case .start(let test, let receivedTest):
                acceptance = CallbackAcceptance(callback: acceptance.callback, test: test, receivedTest: receivedTest)
                state = .listening(waiters: waiters)
                return .listen
            case .cancel:
                state = .cancelledBeforeStart
                return waiters.isEmpty ? .none : .deliver(.failure(.cancelled(.program)), to: waiters)
            default:
                return .none
            }

        case .listening(let waiters):
            switch event {
            case .listenerReady(let listener, let callback):
                return present(listener: listener, callback: callback, waiters: waiters)
            case .noListenerNeeded(let callback):
                return present(listener: nil, callback: callback, waiters: waiters)
            case .listenFailed(let error):
                return close(.failure(error), redirectURI: nil, stepUnderWay: false, waiters: waiters)
            case .cancel, .timedOut:
                return close(ending(event), redirectURI: nil, stepUnderWay: true, waiters: waiters)
            default:
                return .none
            }

        case .presenting(let listener, let redirectURI, let waiters):
            switch event {
            case .presentationReady(let presentation):
                state = .waiting(
                    listener: listener, presentation: presentation, redirectURI: redirectURI, waiters: waiters)
                return .watch(presentation, redirectURI: redirectURI)
            case .presentFailed(let error):
                return close(.failure(error), redirectURI: redirectURI, close: listener, waiters: waiters)
            case .callbackOffered(let url):
                switch verdict(url, redirectURI: redirectURI) {
                case .accepted(let received):
                    return close(
                        .success(received), redirectURI: redirectURI, close: listener, stepUnderWay: true,
                        waiters: waiters)
                case .refused(let why):
                    return .reject(why)
                }
            case .callbackReceived(let received):
                return close(
                    .success(received), redirectURI: redirectURI, close: listener, stepUnderWay: true,
                    waiters: waiters)
            case .cancel, .timedOut:
                return close(
                    ending(event), redirectURI: redirectURI, close: listener, stepUnderWay: true, waiters: waiters)
            default:
                return .none
            }

        case .waiting(let listener, let presentation, let redirectURI, let waiters):
            let outcome: Outcome
            switch event {
            case .callbackOffered(let url):
                switch verdict(url, redirectURI: redirectURI) {
                case .accepted(let received): outcome = .success(received)
                case .refused(let why): return .reject(why)
                }
            case .callbackReceived(let received):
                outcome = .success(received)
            case .closedByUser, .browserFailed, .cancel, .timedOut:
                outcome = ending(event)
            default:
                return .none
            }
            state = .closing(outcome, redirectURI: redirectURI, stepUnderWay: false, waiters: waiters)
            return .tearDown(close: listener, dismiss: presentation)

        case .closing(let outcome, let redirectURI, let stepUnderWay, let waiters):
            switch event {
            case .listenerReady(let late, _) where stepUnderWay:
                state = .closing(outcome, redirectURI: redirectURI, stepUnderWay: false, waiters: waiters)
                return .tearDown(close: late, dismiss: nil)
            case .presentationReady(let late) where stepUnderWay:
                state = .closing(outcome, redirectURI: redirectURI, stepUnderWay: false, waiters: waiters)
                return .tearDown(close: nil, dismiss: late)
            case .noListenerNeeded where stepUnderWay, .listenFailed where stepUnderWay,
                .presentFailed where stepUnderWay:
                state = .closing(outcome, redirectURI: redirectURI, stepUnderWay: false, waiters: waiters)
                return .tearDown(close: nil, dismiss: nil)
            case .tornDown where !stepUnderWay:
                state = .finished(outcome, redirectURI: redirectURI)
                return .deliver(outcome, to: waiters)
            default:
                return .none
            }

        case .finished, .cancelledBeforeStart:
            // Defensive: a resource that still turns up is handed back to be released.
            switch event {
            case .listenerReady(let late, _): return .tearDown(close: late, dismiss: nil)
            case .presentationReady(let late): return .tearDown(close: nil, dismiss: late)
            default: return .none
            }
        }
    }

    /// Enters `presenting`: from now on callbacks must match `callback` as bound, and the
    /// redirect URI is the one it describes.
    private mutating func present(listener: Listener?, callback: Callback, waiters: [Waiter]) -> Action {
        acceptance = acceptance.pinned(to: callback)
        let redirectURI = callback.redirectURI
        state = .presenting(listener: listener, redirectURI: redirectURI, waiters: waiters)
        return .present(redirectURI: redirectURI, callback: callback, watching: listener)
    }

    /// Decides `url` for a listener that received it, by the rule pinned to the listener's
    /// redirect URI. The listener hands back the callback an accepted verdict carries
    /// (``Event/callbackReceived(_:)``), which the machine takes as it is. Before the listener
    /// is ready, and once the session has ended, every URL is refused.
    package func decide(_ url: URL) -> CallbackVerdict {
        switch state {
        case .presenting(_, let redirectURI, _), .waiting(_, _, let redirectURI, _):
            verdict(url, redirectURI: redirectURI)
        default:
            .refused(.callbackMismatch("the session is not waiting for a callback"))
        }
    }

    /// The acceptance rule's verdict on `url`, an accepted callback marked as this machine's.
    private func verdict(_ url: URL, redirectURI: URL) -> CallbackVerdict {
        let verdict = acceptance.verdict(url, redirectURI: redirectURI)
        guard case .accepted(var received) = verdict else { return verdict }
        received.acceptedBy = identity
        return .accepted(received)
    }

    /// The failure an ending event stands for.
    private func ending(_ event: Event) -> Outcome {
        switch event {
        case .closedByUser: .failure(.cancelled(.user))
        case .browserFailed(let error): .failure(error)
        case .timedOut(let after): .failure(.timedOut(after: after))
        default: .failure(.cancelled(.program))
        }
    }

    /// Enters `closing` and tears down `listener`; delivers at once when nothing is held or under way.
    private mutating func close(
        _ outcome: Outcome, redirectURI: URL?, close listener: Listener? = nil, stepUnderWay: Bool = false,
        waiters: [Waiter]
    ) -> Action {
        if listener == nil, !stepUnderWay {
            state = .finished(outcome, redirectURI: redirectURI)
            return .deliver(outcome, to: waiters)
        }
        state = .closing(outcome, redirectURI: redirectURI, stepUnderWay: stepUnderWay, waiters: waiters)
        return .tearDown(close: listener, dismiss: nil)
    }
}
