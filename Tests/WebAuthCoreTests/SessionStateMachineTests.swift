// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import WebAuthCore

/// The machine with plain values for its resources: a listener, a page and a waiter are names.
private typealias Machine = SessionStateMachine<String, String, String>

@Suite("Session state machine")
struct SessionStateMachineTests {
    let redirect = URL(string: "http://127.0.0.1:5000/callback")!
    let callback = Callback.loopback().boundToPort(5000)

    private func listening(_ machine: inout Machine, accepting test: (@Sendable (URL) -> Bool)? = nil) -> Machine.Action
    {
        _ = machine.handle(.start(acceptsCallback: test))
        return machine.handle(.listenerReady("listener", callback: callback))
    }

    private func waitingMachine(accepting test: (@Sendable (URL) -> Bool)? = nil) -> Machine {
        var machine = Machine(callback: .loopback())
        _ = listening(&machine, accepting: test)
        _ = machine.handle(.presentationReady("page"))
        #expect(machine.addWaiter("caller") == nil)
        return machine
    }

    /// The result the machine says to deliver, after the owner reports the teardown done.
    private func delivered(
        after tearDown: Machine.Action, in machine: inout Machine, closing listener: String? = "listener",
        dismissing page: String? = "page"
    ) -> (Machine.Outcome, [String])? {
        guard case .tearDown(let closed, let dismissed) = tearDown else {
            Issue.record("expected a teardown, got \(tearDown)")
            return nil
        }
        #expect(closed == listener)
        #expect(dismissed == page)
        #expect(!machine.isFinished, "nothing is delivered before the teardown is done")
        guard case .deliver(let outcome, let waiters) = machine.handle(.tornDown) else {
            Issue.record("nothing delivered after the teardown")
            return nil
        }
        #expect(machine.isFinished)
        return (outcome, waiters)
    }

    @Test func startsOnceThenListensPresentsAndWaits() {
        var machine = Machine(callback: .loopback())
        #expect(machine.canStart)
        guard case .listen = machine.handle(.start(acceptsCallback: nil)) else {
            Issue.record("start did not listen")
            return
        }
        #expect(!machine.canStart)
        guard case .none = machine.handle(.start(acceptsCallback: nil)) else {
            Issue.record("a second start did something")
            return
        }
        let present = machine.handle(.listenerReady("listener", callback: callback))
        guard case .present(let redirectURI, let bound, let watching) = present else {
            Issue.record("a ready listener did not lead to presenting")
            return
        }
        #expect(redirectURI == redirect)
        #expect(bound == callback)
        #expect(watching == "listener")
        guard case .watch(let page, let waitingAt) = machine.handle(.presentationReady("page")) else {
            Issue.record("an open page is not watched")
            return
        }
        #expect(page == "page")
        #expect(waitingAt == redirect)
        #expect(machine.redirectURI == redirect)
    }

    @Test func cancelBeforeStartPreventsStartingAndDeliversNothing() {
        var machine = Machine(callback: .loopback())
        guard case .none = machine.handle(.cancel) else {
            Issue.record("cancelling an idle session did something")
            return
        }
        #expect(!machine.canStart)
        guard case .none = machine.handle(.start(acceptsCallback: nil)) else {
            Issue.record("a cancelled session started")
            return
        }
        #expect(machine.isFinished)
        #expect(machine.addWaiter("late")?.failureCode == .canceledLogin)
    }

    @Test func anAcceptedCallbackTearsDownThenDeliversToEveryWaiter() throws {
        var machine = waitingMachine()
        #expect(machine.addWaiter("second") == nil)
        let url = URL(string: "http://127.0.0.1:5000/callback?code=abc")!
        let tearDown = machine.handle(.callbackOffered(url))
        #expect(machine.addWaiter("during teardown") == nil, "a caller arriving during the teardown waits")
        let (outcome, waiters) = try #require(delivered(after: tearDown, in: &machine))
        #expect(try outcome.get() == ReceivedCallback(url: url, redirectURI: redirect))
        #expect(waiters == ["caller", "second", "during teardown"])
        #expect(try machine.addWaiter("after")?.get().url == url, "a later caller gets the result at once")
    }

    @Test func callbackWhilePresentingCountsAndThePageThatOpensLateIsDismissed() throws {
        var machine = Machine(callback: .loopback())
        _ = listening(&machine)
        let url = URL(string: "http://127.0.0.1:5000/callback?code=fast")!
        let received = try #require(machine.decide(url).accepted, "the listener's request was refused")
        guard case .tearDown(let closed, nil) = machine.handle(.callbackReceived(received)) else {
            Issue.record("the listener was not closed")
            return
        }
        #expect(closed == "listener")
        guard case .none = machine.handle(.tornDown) else {
            Issue.record("delivered while the page was still opening")
            return
        }
        let (outcome, _) = try #require(
            delivered(
                after: machine.handle(.presentationReady("late page")), in: &machine, closing: nil,
                dismissing: "late page"))
        #expect(try outcome.get().url == url)
    }

    @Test func aListenerThatArrivesAfterCancellationIsHandedBackToClose() throws {
        var machine = Machine(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: nil))
        #expect(machine.addWaiter("caller") == nil)
        guard case .tearDown(nil, nil) = machine.handle(.cancel) else {
            Issue.record("cancelling while listening did not tear down")
            return
        }
        guard case .none = machine.handle(.tornDown) else {
            Issue.record("delivered while the listener was still being made")
            return
        }
        let late = machine.handle(.listenerReady("late listener", callback: callback))
        let (outcome, waiters) = try #require(
            delivered(after: late, in: &machine, closing: "late listener", dismissing: nil))
        #expect(outcome.failureCode == .canceledLogin)
        #expect(waiters == ["caller"])
    }

    @Test func aFailedStepDeliversAtOnceWhenNothingIsHeld() {
        var machine = Machine(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: nil))
        guard case .deliver(let outcome, _) = machine.handle(.listenFailed(.noCallbackReceiver("none"))) else {
            Issue.record("a failed listen step was not delivered")
            return
        }
        #expect(outcome.failureCode == .noCallbackReceiver)
        #expect(machine.isFinished)
    }

    @Test func mismatchedOrUnacceptedCallbacksAreRejectedAndTheSessionGoesOn() throws {
        var machine = waitingMachine(accepting: { $0.query?.contains("state=good") == true })
        let otherPort = URL(string: "http://127.0.0.1:5001/callback?code=abc&state=good")!
        guard case .reject(let mismatch) = machine.handle(.callbackOffered(otherPort)) else {
            Issue.record("a URL on another port was taken")
            return
        }
        #expect(mismatch.code == .callbackMismatch)
        #expect(!mismatch.message.contains("code=abc"))
        let forged = URL(string: "http://127.0.0.1:5000/callback?code=evil&state=wrong")!
        guard case .reject = machine.handle(.callbackOffered(forged)) else {
            Issue.record("an unaccepted callback was taken")
            return
        }
        #expect(!machine.isFinished)
        let real = URL(string: "http://127.0.0.1:5000/callback?code=good&state=good")!
        let (outcome, _) = try #require(delivered(after: machine.handle(.callbackOffered(real)), in: &machine))
        #expect(try outcome.get().url == real)
    }

    @Test func endingsCarryTheirReasons() throws {
        var user = waitingMachine()
        let (byUser, _) = try #require(delivered(after: user.handle(.closedByUser), in: &user))
        #expect(byUser.failure == .cancelled(.user))
        var program = waitingMachine()
        let (byProgram, _) = try #require(delivered(after: program.handle(.cancel), in: &program))
        #expect(byProgram.failure == .cancelled(.program))
        var clock = waitingMachine()
        let (timedOut, _) = try #require(delivered(after: clock.handle(.timedOut(.seconds(2))), in: &clock))
        #expect(timedOut.failureCode == .timedOut)
        #expect(timedOut.failure?.cancellationReason == .timeout)
        var failing = waitingMachine()
        let error = WebAuthenticationSessionError.browserLaunchFailed("gone")
        let (failed, _) = try #require(delivered(after: failing.handle(.browserFailed(error)), in: &failing))
        #expect(failed.failure == error)
    }

    @Test func finishesExactlyOnce() throws {
        var machine = waitingMachine()
        let url = URL(string: "http://127.0.0.1:5000/callback?code=1")!
        _ = try #require(delivered(after: machine.handle(.callbackOffered(url)), in: &machine))
        for event: Machine.Event in [
            .callbackOffered(url), .callbackReceived(ReceivedCallback(url: url, redirectURI: redirect)), .cancel,
            .timedOut(.seconds(1)), .closedByUser, .tornDown,
            .browserFailed(.timedOut(after: .seconds(1))),
        ] {
            guard case .none = machine.handle(event) else {
                Issue.record("a finished session acted on \(event)")
                return
            }
        }
    }

    @Test func outOfOrderEventsAreIgnored() {
        var machine = Machine(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: nil))
        guard case .none = machine.handle(.callbackOffered(redirect)) else {
            Issue.record("a callback before listening was acted on")
            return
        }
        guard case .none = machine.handle(.callbackReceived(ReceivedCallback(url: redirect, redirectURI: redirect)))
        else {
            Issue.record("a listener's callback before listening was acted on")
            return
        }
        guard case .none = machine.handle(.tornDown) else {
            Issue.record("a teardown report while running was acted on")
            return
        }
        #expect(!machine.isFinished)
        #expect(machine.redirectURI == nil)
    }
}

extension Result where Failure == WebAuthenticationSessionError {
    /// The error, if this is a failure.
    fileprivate var failure: WebAuthenticationSessionError? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// The error's code, if this is a failure.
    fileprivate var failureCode: WebAuthenticationSessionError.Code? { failure?.code }
}

@Suite("Session plan")
struct SessionPlanTests {
    @Test func missingRequirementFailsNamingIt() throws {
        let result = SessionPlan.make(
            callback: .loopback(), browserName: "xdg-open", browserCapabilities: [], receiversAccepting: [true],
            required: [.ephemeralSessions], prefersEphemeral: true, additionalHeaderFields: [:])
        guard case .failure(let error) = result else {
            Issue.record("a missing requirement was accepted")
            return
        }
        #expect(error.code == .browserCannotHonorRequest)
        #expect(error.message.contains("ephemeralSessions"))
        #expect(error.message.contains("xdg-open"))
    }

    @Test func unhonouredPreferencesBecomeNotices() throws {
        let plan = try SessionPlan.make(
            callback: .loopback(), browserName: "xdg-open", browserCapabilities: [], receiversAccepting: [false, true],
            required: [], prefersEphemeral: true, additionalHeaderFields: ["X-Client": "cli"]
        ).get()
        #expect(plan.receiverIndex == 1)
        #expect(plan.notices.count == 2)
        #expect(plan.notices.contains { $0.contains("ephemeral") })
        #expect(plan.notices.contains { $0.contains("header") })
    }

    @Test func loopbackNeedsAReceiver() {
        let result = SessionPlan.make(
            callback: .loopback(), browserName: "terminal", browserCapabilities: [.pastedCallback],
            receiversAccepting: [], required: [], prefersEphemeral: false, additionalHeaderFields: [:])
        guard case .failure(let error) = result else {
            Issue.record("planned a loopback session without a listener")
            return
        }
        #expect(error.code == .noCallbackReceiver)
    }

    @Test func customSchemeNeedsSomeoneToCatchIt() throws {
        let none = SessionPlan.make(
            callback: .customScheme("myapp"), browserName: "xdg-open", browserCapabilities: [],
            receiversAccepting: [false], required: [], prefersEphemeral: false, additionalHeaderFields: [:])
        guard case .failure(let error) = none else {
            Issue.record("planned a custom-scheme session nobody can receive")
            return
        }
        #expect(error.code == .noCallbackReceiver)
        #expect(error.message.contains("register the scheme"))
        let pasting = try SessionPlan.make(
            callback: .customScheme("myapp"), browserName: "terminal", browserCapabilities: [.pastedCallback],
            receiversAccepting: [false], required: [], prefersEphemeral: false, additionalHeaderFields: [:]
        ).get()
        #expect(pasting.receiverIndex == nil)
        let intercepting = try SessionPlan.make(
            callback: .https(host: "example.com", path: "/cb"), browserName: "chromium",
            browserCapabilities: [.callbackInterception], receiversAccepting: [], required: [],
            prefersEphemeral: true, additionalHeaderFields: [:]
        ).get()
        #expect(intercepting.notices.count == 1)
    }
}

@Suite("Additional header fields")
struct HeaderFieldPolicyTests {
    @Test(arguments: ["Cookie", "host", "Origin", "Referer", "Content-Length", "Proxy-Authorization", "Sec-Fetch-Mode"])
    func namesTheBrowserControlsAreRefused(_ name: String) {
        let error = HeaderFieldPolicy.firstViolation(in: [name: "x"])
        #expect(error?.code == .invalidHeaderField)
        #expect(error?.message.contains(name) == true)
    }

    @Test func malformedNamesAndValuesAreRefused() {
        #expect(HeaderFieldPolicy.firstViolation(in: ["X Bad": "1"])?.code == .invalidHeaderField)
        #expect(HeaderFieldPolicy.firstViolation(in: ["X-Split": "a\r\nHost: evil"])?.code == .invalidHeaderField)
        #expect(HeaderFieldPolicy.firstViolation(in: ["": "1"])?.code == .invalidHeaderField)
    }

    @Test func ordinaryFieldsPass() {
        #expect(HeaderFieldPolicy.firstViolation(in: ["X-Client": "cli 1.0", "Accept-Language": "en\tq=1"]) == nil)
    }

    @Test func theSessionFailsAtStart() throws {
        let result = SessionPlan.make(
            callback: .loopback(), browserName: "chromium", browserCapabilities: [.additionalHeaderFields],
            receiversAccepting: [true], required: [], prefersEphemeral: false, additionalHeaderFields: ["Cookie": "a=b"]
        )
        guard case .failure(let error) = result else {
            Issue.record("a Cookie header was accepted")
            return
        }
        #expect(error.code == .invalidHeaderField)
    }
}

extension SessionPlan {
    /// The plan for a session with these settings, as the session makes it: from the needs its
    /// browser was chosen for.
    fileprivate static func make(
        callback: Callback, browserName: String, browserCapabilities: BrowserCapabilities, receiversAccepting: [Bool],
        required: BrowserCapabilities, prefersEphemeral: Bool, additionalHeaderFields: [String: String]
    ) -> Result<SessionPlan, WebAuthenticationSessionError> {
        make(
            needs: BrowserNeeds(
                callback: callback, prefersEphemeralSession: prefersEphemeral,
                hasAdditionalHeaderFields: !additionalHeaderFields.isEmpty, requiredCapabilities: required,
                callbackIsReceivable: receiversAccepting.contains(true)),
            browserName: browserName, browserCapabilities: browserCapabilities, receiversAccepting: receiversAccepting,
            additionalHeaderFields: additionalHeaderFields)
    }
}
