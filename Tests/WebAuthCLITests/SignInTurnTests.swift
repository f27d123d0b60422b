// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing
import WebAuthTokenStore

@testable import WebAuthCLI

/// Who signs a profile in when several processes need it, decided without processes.
@Suite("One sign-in per profile: the decisions")
struct SignInTurnTests {
    static let holder = SignInLease.Record(
        pid: 4242, command: "git-credential", terminal: "/dev/pts/3", method: "browser")

    static func ended(_ outcome: SignInLease.Outcome?) -> SignInLease.Record {
        var record = holder
        record.outcome = outcome
        return record
    }

    @Test func aFreeLeaseIsTakenAHeldOneWaitedForOnlyByThoseWhoWait() {
        #expect(SignInTurn.arrival(leaseIsHeld: false, waitsForOpenSignIn: false) == .lead)
        #expect(SignInTurn.arrival(leaseIsHeld: false, waitsForOpenSignIn: true) == .lead)
        #expect(SignInTurn.arrival(leaseIsHeld: true, waitsForOpenSignIn: true) == .wait)
        #expect(SignInTurn.arrival(leaseIsHeld: true, waitsForOpenSignIn: false) == .refuse)
    }

    @Test func aHelperAnswersFromTheStoreWhenItAnswersWhateverTheHolderSaid() {
        for previous in [
            nil, Self.ended(.signedIn), Self.ended(.failed(status: 130, code: "interrupted", message: "x")),
        ] {
            for waited in [false, true] {
                guard
                    case .useStored = SignInTurn.next(
                        profile: "work", waited: waited, storeAnswers: true, previous: previous, mayPrompt: true)
                else {
                    Issue.record(
                        "a store that answers was not used (waited: \(waited), previous: \(String(describing: previous)))"
                    )
                    continue
                }
            }
        }
    }

    @Test func loginTakesTheTokensOfTheSignInItWaitedForAndSignsInAgainOtherwise() {
        guard
            case .useStored = SignInTurn.next(
                profile: "work", waited: true, storeAnswers: nil, previous: Self.ended(.signedIn), mayPrompt: true)
        else {
            Issue.record("login --wait did not take the tokens of the sign-in it waited for")
            return
        }
        // Not waited: an earlier sign-in's success is no reason to skip this one.
        guard
            case .signIn(nil) = SignInTurn.next(
                profile: "work", waited: false, storeAnswers: nil, previous: Self.ended(.signedIn), mayPrompt: true)
        else {
            Issue.record("login skipped its sign-in")
            return
        }
    }

    @Test func oneWaiterThatMayPromptTakesOverFromAHolderThatFailedOrDied() {
        let cancelled = SignInLease.Outcome.failed(
            status: 130, code: "interrupted", message: "the sign-in was cancelled (Ctrl-C)")
        guard
            case .signIn(let note?) = SignInTurn.next(
                profile: "work", waited: true, storeAnswers: false, previous: Self.ended(cancelled), mayPrompt: true)
        else {
            Issue.record("no take-over after a cancelled sign-in")
            return
        }
        #expect(
            note == "the sign-in in process 4242 failed: the sign-in was cancelled (Ctrl-C); signing in here instead.")
        guard
            case .signIn(let killed?) = SignInTurn.next(
                profile: "work", waited: true, storeAnswers: false, previous: Self.ended(nil), mayPrompt: true)
        else {
            Issue.record("no take-over after a killed holder")
            return
        }
        #expect(killed.contains("ended without a result"))
    }

    @Test func aWaiterThatMayNotPromptFailsWithTheHoldersReasonAndStatus() {
        let timedOut = SignInLease.Outcome.failed(status: 3, code: "timedOut", message: "no callback within 60 s")
        guard
            case .fail(let failure) = SignInTurn.next(
                profile: "work", waited: true, storeAnswers: false, previous: Self.ended(timedOut), mayPrompt: false)
        else {
            Issue.record("a waiter that may not prompt did not fail")
            return
        }
        #expect(failure.status == 3)
        #expect(failure.code == "timedOut")
        #expect(failure.message == "the sign-in for profile \"work\" in process 4242 failed: no callback within 60 s")
        guard
            case .fail(let died) = SignInTurn.next(
                profile: "work", waited: true, storeAnswers: false, previous: Self.ended(nil), mayPrompt: false)
        else {
            Issue.record("a waiter that may not prompt did not fail")
            return
        }
        #expect(died.status == ExitStatus.failure)
        #expect(died.code == "signInEnded")
    }

    @Test func theWaitersNoteNamesTheProcessWhereItIsAndHow() {
        #expect(
            SignInTurn.waitingNote(profile: "work", holder: Self.holder, timeout: .seconds(600))
                == "a sign-in for profile \"work\" is open in process 4242 (webauth git-credential on /dev/pts/3, "
                + "a browser page): waiting for it to finish (up to 600 s; Ctrl-C stops waiting).")
        let deciding = SignInLease.Record(pid: 7, command: nil, terminal: nil, method: nil)
        #expect(SignInTurn.describe(deciding) == "process 7 (choosing how to sign in)")
        #expect(SignInTurn.describe(nil) == "another process")
        var device = Self.holder
        device.method = "device"
        device.command = "exec-credential"
        #expect(SignInTurn.describe(device) == "process 4242 (webauth exec-credential on /dev/pts/3, a device code)")
        // Text read from the record is shown as untrusted.
        var hostile = Self.holder
        hostile.terminal = "/dev/pts/3\u{1B}]0;owned\u{07}"
        #expect(!SignInTurn.describe(hostile).contains("\u{1B}"))
    }

    @Test func loginWithoutWaitExits1NamingTheProcess() {
        let failure = SignInTurn.alreadyOpen(profile: "work", holder: Self.holder)
        #expect(failure.status == 1)
        #expect(failure.code == "signInOpen")
        #expect(
            failure.message
                == "a sign-in for work is already open in process 4242 (webauth git-credential on /dev/pts/3, a browser page)"
        )
        #expect(failure.fix?.contains("--wait") == true)
        let late = SignInTurn.waitTimedOut(profile: "work", holder: Self.holder, timeout: .seconds(60))
        #expect(late.status == ExitStatus.timedOut)
        #expect(late.message.hasSuffix("did not finish within 60 s"))
    }
}
