// Copyright 2026 the webauth authors
// SPDX-License-Identifier: Apache-2.0

import Logging
import Testing
import WebAuthCore

/// An error of a module's own, declared as each of webauth's are: its codes and its fields.
private struct SampleError: WebAuthError {
    struct Code: WebAuthErrorCode {
        let rawValue: String
        static let broken = Code(rawValue: "broken")
    }
    let code: Code
    let message: String
}

@Suite("One error form")
struct WebAuthErrorTests {
    @Test("An error prints as its code's name, a colon and its message")
    func printsCodeAndMessage() {
        let error = SampleError(code: .broken, message: "the pipe broke")
        #expect(error.description == "broken: the pipe broke")
        #expect("\(error)" == "broken: the pipe broke")
        #expect(SampleError.Code.broken.description == "broken")
    }

    @Test("The session's error, whose codes are numbers, prints its code's name too")
    func sessionErrorPrintsTheName() {
        let error = WebAuthenticationSessionError.timedOut(after: .seconds(5))
        #expect(error.description == "timedOut: no callback arrived within 5 s")
    }

    @Test("Errors of different modules can be caught and reported alike")
    func caughtAlike() {
        let errors: [any Error] = [
            SampleError(code: .broken, message: "one"), WebAuthenticationSessionError.invalidCallback("two"),
        ]
        let printed = errors.compactMap { ($0 as? any WebAuthError)?.description }
        #expect(printed == ["broken: one", "invalidCallback: two"])
    }

    @Test("The default logger discards everything")
    func silentLogger() {
        #expect(Logger.webAuthSilent.handler is SwiftLogNoOpLogHandler)
    }
}
