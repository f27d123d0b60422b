import Foundation
import Testing

@testable import WebAuthCore

@Suite("Session state machine")
struct SessionStateMachineTests {
    let redirect = URL(string: "http://127.0.0.1:5000/callback")!
    let callback = Callback.loopback().boundToPort(5000)

    private func waitingMachine() -> SessionStateMachine {
        var machine = SessionStateMachine(callback: .loopback())
        _ = machine.handle(.start)
        _ = machine.handle(.listening(redirectURI: redirect, callback: callback))
        _ = machine.handle(.presented)
        return machine
    }

    @Test func startsOnceThenListensPresentsAndWaits() {
        var machine = SessionStateMachine(callback: .loopback())
        #expect(machine.canStart)
        #expect(machine.handle(.start) == .listen)
        #expect(!machine.canStart)
        #expect(machine.handle(.start) == .none)
        #expect(
            machine.handle(.listening(redirectURI: redirect, callback: callback)) == .present(redirectURI: redirect))
        #expect(machine.handle(.presented) == .none)
        #expect(machine.state == .waiting(redirectURI: redirect))
    }

    @Test func cancelBeforeStartPreventsStartingAndDeliversNothing() {
        var machine = SessionStateMachine(callback: .loopback())
        #expect(machine.handle(.cancel) == .none)
        #expect(!machine.canStart)
        #expect(machine.handle(.start) == .none)
        #expect(machine.isFinished)
    }

    @Test func matchingAcceptedCallbackFinishesWithSuccess() {
        var machine = waitingMachine()
        let url = URL(string: "http://127.0.0.1:5000/callback?code=abc")!
        #expect(machine.handle(.callbackOffered(url, accepted: true)) == .finish(.success(url)))
        #expect(machine.isFinished)
    }

    @Test func callbackWhilePresentingCounts() {
        var machine = SessionStateMachine(callback: .loopback())
        _ = machine.handle(.start)
        _ = machine.handle(.listening(redirectURI: redirect, callback: callback))
        let url = URL(string: "http://127.0.0.1:5000/callback?code=fast")!
        #expect(machine.handle(.callbackOffered(url, accepted: true)) == .finish(.success(url)))
    }

    @Test func mismatchedOrUnacceptedCallbacksAreRejectedAndTheSessionGoesOn() {
        var machine = waitingMachine()
        let otherPort = URL(string: "http://127.0.0.1:5001/callback?code=abc")!
        guard case .reject(let mismatch) = machine.handle(.callbackOffered(otherPort, accepted: true)) else {
            Issue.record("a URL on another port was taken")
            return
        }
        #expect(mismatch.code == .callbackMismatch)
        #expect(!mismatch.message.contains("code=abc"))
        let forged = URL(string: "http://127.0.0.1:5000/callback?code=evil&state=wrong")!
        guard case .reject = machine.handle(.callbackOffered(forged, accepted: false)) else {
            Issue.record("an unaccepted callback was taken")
            return
        }
        #expect(machine.state == .waiting(redirectURI: redirect))
        let real = URL(string: "http://127.0.0.1:5000/callback?code=good")!
        #expect(machine.handle(.callbackOffered(real, accepted: true)) == .finish(.success(real)))
    }

    @Test func endingsCarryTheirReasons() {
        var user = waitingMachine()
        #expect(user.handle(.closedByUser) == .finish(.failure(.canceled(.user))))
        var program = waitingMachine()
        #expect(program.handle(.cancel) == .finish(.failure(.canceled(.program))))
        var clock = waitingMachine()
        guard case .finish(.failure(let timedOut)) = clock.handle(.timedOut(.seconds(2))) else {
            Issue.record("timeout did not finish")
            return
        }
        #expect(timedOut.code == .timedOut)
        #expect(timedOut.cancellationReason == .timeout)
        var failing = waitingMachine()
        let error = WebAuthenticationSessionError.browserLaunchFailed("gone")
        #expect(failing.handle(.failed(error)) == .finish(.failure(error)))
    }

    @Test func finishesExactlyOnce() {
        var machine = waitingMachine()
        let url = URL(string: "http://127.0.0.1:5000/callback?code=1")!
        #expect(machine.handle(.callbackOffered(url, accepted: true)) == .finish(.success(url)))
        #expect(machine.handle(.callbackOffered(url, accepted: true)) == .none)
        #expect(machine.handle(.cancel) == .none)
        #expect(machine.handle(.timedOut(.seconds(1))) == .none)
        #expect(machine.handle(.closedByUser) == .none)
        #expect(machine.handle(.failed(.timedOut(after: .seconds(1)))) == .none)
    }

    @Test func cancelWhileListeningFinishes() {
        var machine = SessionStateMachine(callback: .loopback())
        _ = machine.handle(.start)
        #expect(machine.handle(.cancel) == .finish(.failure(.canceled(.program))))
        #expect(machine.handle(.listening(redirectURI: redirect, callback: callback)) == .none)
    }

    @Test func outOfOrderEventsAreIgnored() {
        var machine = SessionStateMachine(callback: .loopback())
        _ = machine.handle(.start)
        #expect(machine.handle(.presented) == .none)
        #expect(machine.handle(.callbackOffered(redirect, accepted: true)) == .none)
        #expect(machine.state == .listening)
    }
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
