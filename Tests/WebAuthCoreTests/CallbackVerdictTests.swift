// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthPlatform

@testable import WebAuthCore

/// The machine with plain values for its resources.
private typealias Machine = SessionStateMachine<String, String, String>

@Suite("Callback verdict")
struct CallbackVerdictTests {
    let bound = Callback.loopback().boundToPort(5000)
    let redirect = URL(string: "http://127.0.0.1:5000/callback")!

    @Test func anAcceptedVerdictCarriesTheCallbackWithItsParametersRead() throws {
        let acceptance = CallbackAcceptance(callback: bound, receivedTest: { $0.parameters.query["state"] == "s" })
        let url = try #require(URL(string: "http://127.0.0.1:5000/callback?code=a%2Bb&state=s&code=second"))
        let received = try #require(acceptance.verdict(url, redirectURI: redirect).accepted)
        #expect(received.url == url)
        #expect(received.redirectURI == redirect)
        #expect(received.parameters.query == ["code": "a+b", "state": "s"])
        #expect(received == ReceivedCallback(url: url, redirectURI: redirect))
    }

    @Test func aRefusedVerdictSaysWhyWithoutTheQuery() throws {
        let acceptance = CallbackAcceptance(callback: bound, test: { $0.query?.contains("state=s") == true })
        let otherPort = try #require(URL(string: "http://127.0.0.1:5001/callback?code=secret&state=s"))
        guard case .refused(let mismatch) = acceptance.verdict(otherPort, redirectURI: redirect) else {
            Issue.record("a URL on another port was accepted")
            return
        }
        #expect(mismatch.code == .callbackMismatch)
        #expect(!mismatch.message.contains("secret"))
        let forged = try #require(URL(string: "http://127.0.0.1:5000/callback?code=secret&state=forged"))
        #expect(!acceptance.verdict(forged, redirectURI: redirect).isAccepted)
    }

    @Test func fragmentParametersAreReadWithOrWithoutAQuestionMark() throws {
        let plain = CallbackParameters(try #require(URL(string: "com.example.app:/cb#access_token=t&state=s")))
        let marked = CallbackParameters(try #require(URL(string: "com.example.app:/cb#?access_token=t&state=s")))
        #expect(plain.fragment == ["access_token": "t", "state": "s"])
        #expect(marked == plain)
        #expect(plain.query.isEmpty)
    }

    @Test func theMachineDecidesAListenersURLOnceAndTakesTheCallbackItAccepted() throws {
        let asked = Locked(0)
        var machine = Machine(callback: .loopback())
        _ = machine.handle(
            .start(
                acceptsCallback: nil,
                acceptsReceived: { received in
                    asked.withLock { $0 += 1 }
                    return received.parameters.query["state"] == "good"
                }))
        _ = machine.handle(.listenerReady("listener", callback: bound))
        _ = machine.handle(.presentationReady("page"))
        #expect(machine.addWaiter("caller") == nil)

        let forged = try #require(URL(string: "http://127.0.0.1:5000/callback?code=evil&state=wrong"))
        #expect(!machine.decide(forged).isAccepted)
        #expect(!machine.isFinished, "a refused URL does not end the session")

        let real = try #require(URL(string: "http://127.0.0.1:5000/callback?code=1&state=good"))
        let verdict = machine.decide(real)
        #expect(verdict.accepted?.redirectURI == redirect)
        #expect(asked.withLock { $0 } == 2)

        let accepted = try #require(verdict.accepted)
        guard case .tearDown = machine.handle(.callbackReceived(accepted)) else {
            Issue.record("the accepted callback did not end the session")
            return
        }
        #expect(asked.withLock { $0 } == 2, "the listener's callback was taken as it is; it was not decided again")
        guard case .deliver(.success(let received), _) = machine.handle(.tornDown) else {
            Issue.record("the callback was not delivered")
            return
        }
        #expect(received == verdict.accepted)
    }

    @Test func aCallbackTheSessionDidNotAcceptIsDecidedAsAnOfferedURL() throws {
        var machine = Machine(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: { $0.query?.contains("state=good") == true }))
        _ = machine.handle(.listenerReady("listener", callback: bound))
        _ = machine.handle(.presentationReady("page"))
        #expect(machine.addWaiter("caller") == nil)

        // Made by a receiver, with the shape of an accepted one: refused, the session waits on.
        let forged = try #require(URL(string: "http://127.0.0.1:5000/callback?code=evil&state=wrong"))
        guard case .reject = machine.handle(.callbackReceived(ReceivedCallback(url: forged, redirectURI: redirect)))
        else {
            Issue.record("a callback the session never accepted was taken")
            return
        }
        // Accepted, then changed: the mark is gone, so it is decided again, and refused.
        let real = try #require(URL(string: "http://127.0.0.1:5000/callback?code=1&state=good"))
        var changed = try #require(machine.decide(real).accepted)
        changed.url = forged
        guard case .reject = machine.handle(.callbackReceived(changed)) else {
            Issue.record("an accepted callback changed afterwards was taken")
            return
        }
        #expect(!machine.isFinished)
        // Made by a receiver but one the rule accepts: decided, and taken.
        guard case .tearDown = machine.handle(.callbackReceived(ReceivedCallback(url: real, redirectURI: redirect)))
        else {
            Issue.record("a good callback was not taken")
            return
        }
    }

    @Test func aCallbackAcceptedByAnotherSessionIsDecidedAgain() throws {
        var first = Machine(callback: .loopback(), identity: 1)
        var second = Machine(callback: .loopback(), identity: 2)
        _ = first.handle(.start(acceptsCallback: nil))
        _ = first.handle(.listenerReady("listener", callback: bound))
        _ = second.handle(.start(acceptsCallback: { $0.query?.contains("state=second") == true }))
        _ = second.handle(.listenerReady("listener", callback: bound))
        let url = try #require(URL(string: "http://127.0.0.1:5000/callback?code=1&state=first"))
        let acceptedByFirst = try #require(first.decide(url).accepted)
        #expect(acceptedByFirst.acceptedBy == 1)
        guard case .reject = second.handle(.callbackReceived(acceptedByFirst)) else {
            Issue.record("another session's callback was taken as it is")
            return
        }
    }

    @Test func nothingIsAcceptedBeforeTheListenerIsReadyOrAfterTheEnd() throws {
        var machine = Machine(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: nil))
        let url = try #require(URL(string: "http://127.0.0.1:5000/callback?code=1"))
        #expect(!machine.decide(url).isAccepted, "the rule is not pinned before the listener is ready")
        _ = machine.handle(.listenerReady("listener", callback: bound))
        #expect(machine.decide(url).isAccepted)
        _ = machine.handle(.cancel)
        #expect(!machine.decide(url).isAccepted)
    }

    @Test func theRuleIsTheOnePinnedToTheListenersPort() throws {
        var machine = Machine(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: nil))
        _ = machine.handle(.listenerReady("listener", callback: bound))
        #expect(machine.redirectURI == redirect)
        let elsewhere = try #require(URL(string: "http://127.0.0.1:5001/callback?code=1"))
        #expect(!machine.decide(elsewhere).isAccepted)
        guard case .reject = machine.handle(.callbackOffered(elsewhere)) else {
            Issue.record("a URL on another port was taken")
            return
        }
    }
}

@Suite("The first callback wins")
struct FirstCallbackTests {
    let bound = Callback.loopback().boundToPort(5000)

    private func waiting() -> SessionStateMachine<String, String, String> {
        var machine = SessionStateMachine<String, String, String>(callback: .loopback())
        _ = machine.handle(.start(acceptsCallback: { $0.query?.contains("state=good") == true }))
        _ = machine.handle(.listenerReady("listener", callback: bound))
        _ = machine.handle(.presentationReady("page"))
        _ = machine.addWaiter("caller")
        return machine
    }

    @Test func aBrowsersCallbackFirstLeavesTheListenersToFindTheSessionClosing() throws {
        var machine = waiting()
        let fromListener = try #require(URL(string: "http://127.0.0.1:5000/callback?code=listener&state=good"))
        let received = try #require(machine.decide(fromListener).accepted)
        let fromBrowser = try #require(URL(string: "http://127.0.0.1:5000/callback?code=browser&state=good"))
        guard case .tearDown = machine.handle(.callbackOffered(fromBrowser)) else {
            Issue.record("the browser's callback did not end the session")
            return
        }
        guard case .none = machine.handle(.callbackReceived(received)) else {
            Issue.record("a second callback was acted on")
            return
        }
        guard case .deliver(.success(let delivered), _) = machine.handle(.tornDown) else {
            Issue.record("nothing was delivered")
            return
        }
        #expect(delivered.url == fromBrowser)
    }

    @Test func aListenersCallbackFirstLeavesTheBrowsersToFindTheSessionClosing() throws {
        var machine = waiting()
        let fromListener = try #require(URL(string: "http://127.0.0.1:5000/callback?code=listener&state=good"))
        let received = try #require(machine.decide(fromListener).accepted)
        guard case .tearDown = machine.handle(.callbackReceived(received)) else {
            Issue.record("the listener's callback did not end the session")
            return
        }
        #expect(!machine.decide(fromListener).isAccepted, "a closing session accepts nothing more")
        let fromBrowser = try #require(URL(string: "http://127.0.0.1:5000/callback?code=browser&state=good"))
        guard case .none = machine.handle(.callbackOffered(fromBrowser)) else {
            Issue.record("a second callback was acted on")
            return
        }
        guard case .deliver(.success(let delivered), _) = machine.handle(.tornDown) else {
            Issue.record("nothing was delivered")
            return
        }
        #expect(delivered == received)
    }
}
